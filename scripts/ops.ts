// `npm run ops -- <command>`: operator commands on the index. Results go to
// stdout, logs (pino) to stderr. Exit code 0 done, 1 mismatches or failure,
// 2 a bad command line; always set with process.exit, because a child's exit
// hooks (embedded PostgreSQL's once forced 0) must never decide it.
import pino from 'pino'
import { loadConfig, type Config } from '../core/config.ts'
import { COMMAND_USAGE, parseOpsArgs, USAGE, type OpsCommand } from './ops/args.ts'
import { openOpsContext, openOpsDatabase, type OpsContext } from './ops/context.ts'
import type { OpsCommandContext } from './ops/command.ts'
import { runVerifyIndex } from './ops/verify-index.ts'
import { runReindex } from './ops/reindex.ts'
import { runGraphqlSwitch } from './ops/graphql.ts'
import { runStatus } from './ops/status.ts'
import { runFaucet } from './ops/faucet.ts'
import { runInstallService } from './ops/install-service.ts'
import { runBackup } from './ops/backup.ts'
import { runRestore } from './ops/restore.ts'
import { runKeys } from './ops/keys.ts'
import { runExplorerEnv } from './ops/explorer-env.ts'
import { runStatsRebuild } from './ops/stats.ts'
import { runTag } from './ops/tag.ts'

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
try {
  config = loadConfig()
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`)
  process.exit(EXIT_FAILED)
}
// These start neither Geth nor PostgreSQL: a switch edits DATA_DIR/config.json,
// status asks the running gateway, install-service writes files.
try {
  if (command.name === 'graphql') process.exit(await runGraphqlSwitch(config, command.enabled, out))
  if (command.name === 'explorer-env') process.exit(runExplorerEnv(config, command, out))
  if (command.name === 'status') process.exit(await runStatus(config, command.json, out))
  if (command.name === 'install-service') process.exit(await runInstallService(command, out))
  // Restore starts embedded PostgreSQL itself and Geth not at all (geth init and import run on their own).
  if (command.name === 'restore') process.exit(await runRestore(config, pino({ level: config.logLevel }, pino.destination({ dest: 2, sync: true })), out, command.dir))
} catch (err) {
  process.stderr.write(`${command.name} failed: ${(err as Error).message}\n`)
  process.exit(EXIT_FAILED)
}
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
  if (command.name === 'keys') {
    // Keys live in the database alone: no node is started for them.
    const opened = database = await openOpsDatabase(config, log)
    exitCode = await runKeys(opened.db, command, out)
  } else if (command.name === 'tag') {
    const opened = database = await openOpsDatabase(config, log)
    exitCode = await runTag(opened.db, command, out)
  } else {
    ops = await openOpsContext(config, log)
    const context: OpsCommandContext = { ops, log, out, signal: controller.signal }
    exitCode = command.name === 'verify-index'
      ? await runVerifyIndex(context, command)
      : command.name === 'faucet'
        ? await runFaucet(context, config, command)
        : command.name === 'backup'
          ? await runBackup(context, config, command.dir)
          : command.name === 'stats-rebuild'
            ? await runStatsRebuild(context)
            : await runReindex(context, command as Extract<OpsCommand, { name: 'reindex' }>)
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
