// `npm run ops -- <command>`: operator commands on the index. Results go to
// stdout, logs (pino) to stderr. Exit code 0 done, 1 mismatches or failure,
// 2 a bad command line; always set with process.exit, because a child's exit
// hooks (embedded PostgreSQL's once forced 0) must never decide it.
import { COMMAND_USAGE, parseOpsArgs, USAGE, type OpsCommand } from './ops/args.ts'
import type { Config } from '../core/config.ts'
import type { OpsContext } from './ops/context.ts'
import type { OpsCommandContext } from './ops/command.ts'

// Each command's module (and the config, pino, Geth and database code) is
// imported when it runs, not at start: loading every command took about two
// seconds of CPU per run, for `help` and a bad command line too.
const EXIT_FAILED = 1
const EXIT_USAGE = 2
/** As shells report a process stopped by SIGINT. */
const EXIT_INTERRUPTED = 130

let command: OpsCommand
try {
  command = parseOpsArgs(process.argv.slice(2))
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`)
  process.exit(EXIT_USAGE)
}
if (command.name === 'help') {
  process.stdout.write(`${command.command === undefined ? USAGE : `Usage: npm run ops -- ${COMMAND_USAGE[command.command]}`}\n`)
  process.exit(0)
}

const out = (line: string): void => { process.stdout.write(`${line}\n`) }
let config: Config
const [{ loadConfig }, { withServiceEnvironment }] = await Promise.all([import('../core/config.ts'), import('./ops/service-env.ts')])
try {
  // Without DATA_DIR, the installed service's settings (install-service's environment file).
  config = loadConfig((await withServiceEnvironment(process.env)).env)
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`)
  process.exit(EXIT_FAILED)
}
// These start neither Geth nor PostgreSQL: a switch edits DATA_DIR/config.json,
// status asks the running gateway, install-service writes files.
try {
  if (command.name === 'graphql') process.exit(await (await import('./ops/graphql.ts')).runGraphqlSwitch(config, command.enabled, out))
  if (command.name === 'explorer-env') process.exit(await (await import('./ops/explorer-env.ts')).runExplorerEnv(config, command, out))
  if (command.name === 'status') process.exit(await (await import('./ops/status.ts')).runStatus(config, command.json, out))
  if (command.name === 'signers') process.exit(await (await import('./ops/signers.ts')).runSigners(config, command, out))
  if (command.name === 'install-service') {
    const [{ default: pino }, { runInstallService }] = await Promise.all([import('pino'), import('./ops/install-service.ts')])
    process.exit(await runInstallService(command, config, pino({ level: config.logLevel }, pino.destination({ dest: 2, sync: true })), out))
  }
  // Restore starts embedded PostgreSQL itself and Geth not at all (geth init and import run on their own).
  if (command.name === 'restore') {
    const [{ default: pino }, { runRestore }] = await Promise.all([import('pino'), import('./ops/restore.ts')])
    process.exit(await runRestore(config, pino({ level: config.logLevel }, pino.destination({ dest: 2, sync: true })), out, command.dir))
  }
} catch (err) {
  process.stderr.write(`${command.name} failed: ${(err as Error).message}\n`)
  process.exit(EXIT_FAILED)
}
const { default: pino } = await import('pino')
// Synchronous: process.exit below must not drop the last lines.
const log = pino({ level: config.logLevel, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ dest: 2, sync: true }))

// Ctrl-C stops the command; Geth and PostgreSQL that ops started are still
// stopped in order. A second Ctrl-C leaves at once (the next start stops them).
const controller = new AbortController()
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (controller.signal.aborted) process.exit(EXIT_INTERRUPTED)
    log.warn({ signal }, 'interrupted; stopping (again to leave at once)')
    controller.abort()
  })
}

let exitCode = EXIT_FAILED
let ops: OpsContext | undefined
let database: { close (): Promise<void> } | undefined
try {
  const { openOpsContext, openOpsDatabase } = await import('./ops/context.ts')
  if (command.name === 'keys') {
    // Keys live in the database alone: no node is started for them.
    const { runKeys } = await import('./ops/keys.ts')
    const opened = database = await openOpsDatabase(config, log)
    exitCode = await runKeys(opened.db, command, out)
  } else if (command.name === 'tag') {
    const { runTag } = await import('./ops/tag.ts')
    const opened = database = await openOpsDatabase(config, log)
    exitCode = await runTag(opened.db, command, out)
  } else {
    ops = await openOpsContext(config, log)
    const context: OpsCommandContext = { ops, log, out, signal: controller.signal }
    exitCode = command.name === 'verify-index'
      ? await (await import('./ops/verify-index.ts')).runVerifyIndex(context, command)
      : command.name === 'faucet'
        ? await (await import('./ops/faucet.ts')).runFaucet(context, config, command)
        : command.name === 'backup'
          ? await (await import('./ops/backup.ts')).runBackup(context, config, command.dir)
          : command.name === 'stats-rebuild'
            ? await (await import('./ops/stats.ts')).runStatsRebuild(context)
            : await (await import('./ops/reindex.ts')).runReindex(context, command as Extract<OpsCommand, { name: 'reindex' }>)
  }
} catch (err) {
  if (controller.signal.aborted) {
    exitCode = EXIT_INTERRUPTED
    process.stderr.write(`${command.name}: interrupted\n`)
  } else {
    const code = (err as { code?: string }).code
    process.stderr.write(`${command.name} failed: ${code?.startsWith('GW_ERR_') === true ? `${code}: ` : ''}${(err as Error).message}\n`)
  }
} finally {
  await ops?.close()
  await database?.close()
}
process.exit(exitCode)
