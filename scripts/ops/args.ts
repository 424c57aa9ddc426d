// The ops command line: `<command> [--from N] [--to M]`, checked before anything starts.
import { parseArgs } from 'node:util'
import { OpsUsageError } from '../../core/errors.ts'

export type OpsCommand =
  | { name: 'help' }
  | { name: 'verify-index', from: number | undefined, to: number | undefined }
  | { name: 'reindex', from: number }
  | { name: 'graphql', enabled: boolean }
  | { name: 'stats-rebuild' }

export const USAGE = `Usage: npm run ops -- <command> [options]

Commands:
  verify-index [--from N] [--to M]
      Compare the index with the node block by block: hash, parent hash, the
      transaction hashes in order and their statuses, and the log count. Prints
      one line per mismatch, then a summary. Checks blocks 0 to the index head
      unless --from/--to say otherwise. Exit code 0 only when nothing differs.
  reindex --from N
      Delete the indexed blocks from N up (with their transactions, logs and
      internal transactions) and index them again up to the node's head. Takes
      the indexer lock: refuses while a gateway indexes the same database.
  graphql on|off
      Turn this instance's GraphQL API on or off in DATA_DIR/config.json
      (GRAPHQL_ENABLED). Restart the gateway to apply it.
  stats rebuild
      Compute the Stats API's daily figures again from the indexed tables, keep
      them, and print each day and figure where the incremental ones differed.
      Exit code 0 only when nothing differed.

Options:
  --help    this text

Node and database: GETH_RPC_URL and DATABASE_URL when set; otherwise those of
the gateway running on DATA_DIR (DATA_DIR/endpoints.json); otherwise ops starts
Geth and embedded PostgreSQL from DATA_DIR itself and stops them when done.
Exit codes: 0 done, 1 mismatches found or the command failed, 2 bad command line.`

/** Throws OpsUsageError for anything it cannot run. */
export function parseOpsArgs (argv: string[]): OpsCommand {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { from: { type: 'string' }, to: { type: 'string' }, help: { type: 'boolean', short: 'h' } }
    })
  } catch (err) {
    throw new OpsUsageError((err as Error).message)
  }
  const { positionals, values } = parsed
  if (values.help === true || positionals[0] === 'help') return { name: 'help' }
  if (positionals.length === 0) throw new OpsUsageError('no command given')
  if (positionals[0] === 'graphql') return graphqlSwitch(positionals.slice(1), values)
  if (positionals[0] === 'stats') return statsCommand(positionals.slice(1), values)
  if (positionals.length > 1) throw new OpsUsageError(`one command at a time, got ${positionals.join(' ')}`)
  const from = blockNumber('--from', values.from)
  const to = blockNumber('--to', values.to)
  switch (positionals[0]) {
    case 'verify-index':
      if (from !== undefined && to !== undefined && from > to) throw new OpsUsageError(`--from ${from} is above --to ${to}`)
      return { name: 'verify-index', from, to }
    case 'reindex':
      if (from === undefined) throw new OpsUsageError('reindex needs --from N')
      if (to !== undefined) throw new OpsUsageError('reindex always indexes up to the node\'s head: it takes no --to')
      return { name: 'reindex', from }
    default:
      throw new OpsUsageError(`unknown command ${JSON.stringify(positionals[0])}`)
  }
}

function blockNumber (option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new OpsUsageError(`${option} wants a block number, got ${JSON.stringify(value)}`)
  return Number(value)
}

function graphqlSwitch (rest: string[], values: { from?: string, to?: string }): OpsCommand {
  if (rest.length !== 1 || (rest[0] !== 'on' && rest[0] !== 'off')) throw new OpsUsageError('graphql takes on or off')
  if (values.from !== undefined || values.to !== undefined) throw new OpsUsageError('graphql takes no --from or --to')
  return { name: 'graphql', enabled: rest[0] === 'on' }
}

function statsCommand (rest: string[], values: { from?: string, to?: string }): OpsCommand {
  if (rest.length !== 1 || rest[0] !== 'rebuild') throw new OpsUsageError('stats takes rebuild')
  if (values.from !== undefined || values.to !== undefined) throw new OpsUsageError('stats rebuild takes no --from or --to')
  return { name: 'stats-rebuild' }
}
