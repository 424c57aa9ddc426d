// The ops command line: `<command> [arguments] [options]`, checked before anything starts.
import { parseArgs } from 'node:util'
import { isAddress } from 'ethers'
import { OpsUsageError } from '../../core/errors.ts'
import { COMMAND_USAGE, USAGE, type OpsCommandName } from './usage.ts'
import { parseKeysArgs, type KeysCommand } from './keys-args.ts'
import { MAX_TAG_LENGTH } from '../../core/interpreter/public-tags.ts'

export { USAGE, COMMAND_USAGE }

export type OpsCommand =
  | { name: 'help', command?: OpsCommandName }
  | { name: 'verify-index', from: number | undefined, to: number | undefined }
  | { name: 'reindex', from: number }
  | { name: 'graphql', enabled: boolean }
  | { name: 'status', json: boolean }
  | { name: 'faucet', address: string, amount: string | undefined }
  | { name: 'backup', dir: string }
  | { name: 'restore', dir: string }
  | { name: 'install-service', user: string | undefined, dataDir: string | undefined, cacheDir: string | undefined, gethDir: string | undefined, unitFile: string | undefined, envFile: string | undefined }
  | KeysCommand
  | { name: 'explorer-env', apiUrl: string | undefined, appUrl: string | undefined }
  | { name: 'stats-rebuild' }
  | { name: 'tag', address: string, tag: string | undefined }
  | SignersCommand

export type SignersCommand =
  | { name: 'signers', action: 'list' | 'self' }
  | { name: 'signers', action: 'propose' | 'remove' | 'discard', address: string }

const OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  json: { type: 'boolean' },
  user: { type: 'string' },
  'data-dir': { type: 'string' },
  'cache-dir': { type: 'string' },
  'geth-dir': { type: 'string' },
  'unit-file': { type: 'string' },
  'environment-file': { type: 'string' },
  label: { type: 'string' },
  tier: { type: 'string' },
  limit: { type: 'string' },
  grace: { type: 'string' },
  'api-url': { type: 'string' },
  'app-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' }
} as const

type Values = {
  from?: string,
  to?: string,
  json?: boolean,
  user?: string,
  'data-dir'?: string,
  'cache-dir'?: string,
  'geth-dir'?: string,
  'unit-file'?: string,
  'environment-file'?: string,
  label?: string,
  tier?: string,
  limit?: string,
  grace?: string,
  'api-url'?: string,
  'app-url'?: string
}

/** Which options each command takes; any other is refused by name. */
const TAKES: Record<OpsCommandName, Array<keyof Values>> = {
  'verify-index': ['from', 'to'],
  reindex: ['from', 'to'],
  graphql: [],
  status: ['json'],
  faucet: [],
  'install-service': ['user', 'data-dir', 'cache-dir', 'geth-dir', 'unit-file', 'environment-file'],
  backup: [],
  restore: [],
  // keys checks which of these each of its actions takes (keys-args.ts).
  keys: ['label', 'tier', 'limit', 'grace', 'json'],
  'explorer-env': ['api-url', 'app-url'],
  stats: [],
  tag: [],
  signers: []
}

/** Throws OpsUsageError for anything it cannot run. */
export function parseOpsArgs (argv: string[]): OpsCommand {
  let parsed
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS })
  } catch (err) {
    throw new OpsUsageError((err as Error).message)
  }
  const { positionals, values } = parsed
  const [name, ...rest] = positionals
  if (name === 'help') return { name: 'help', command: isCommand(rest[0]) ? rest[0] : undefined }
  if (values.help === true) return { name: 'help', command: isCommand(name) ? name : undefined }
  if (name === undefined) throw new OpsUsageError('no command given')
  if (!isCommand(name)) throw new OpsUsageError(`unknown command ${JSON.stringify(name)}`)
  const extra = (Object.keys(values) as Array<keyof Values>).filter((option) => !TAKES[name].includes(option))
  if (extra.length > 0) throw new OpsUsageError(`${name} takes no --${extra[0]}`)
  return parseCommand(name, rest, values)
}

function parseCommand (name: OpsCommandName, rest: string[], values: Values): OpsCommand {
  const args = (min: number, max: number, what: string): void => {
    if (rest.length < min || rest.length > max) throw new OpsUsageError(rest.length > max && max === 0 ? `one command at a time, got ${[name, ...rest].join(' ')}` : `${name} takes ${what}`)
  }
  switch (name) {
    case 'verify-index': {
      args(0, 0, 'no arguments')
      const from = blockNumber('--from', values.from)
      const to = blockNumber('--to', values.to)
      if (from !== undefined && to !== undefined && from > to) throw new OpsUsageError(`--from ${from} is above --to ${to}`)
      return { name, from, to }
    }
    case 'reindex': {
      args(0, 0, 'no arguments')
      const from = blockNumber('--from', values.from)
      if (from === undefined) throw new OpsUsageError('reindex needs --from N')
      if (values.to !== undefined) throw new OpsUsageError('reindex always indexes up to the node\'s head: it takes no --to')
      return { name, from }
    }
    case 'graphql':
      if (rest.length !== 1 || (rest[0] !== 'on' && rest[0] !== 'off')) throw new OpsUsageError('graphql takes on or off')
      return { name, enabled: rest[0] === 'on' }
    case 'status':
      args(0, 0, 'no arguments')
      return { name, json: values.json === true }
    case 'faucet': {
      args(1, 2, 'an address and optionally an amount in coins')
      if (!isAddress(rest[0])) throw new OpsUsageError(`faucet wants an address, got ${JSON.stringify(rest[0])}`)
      if (rest[1] !== undefined && !/^\d{1,12}(\.\d{1,18})?$/.test(rest[1])) throw new OpsUsageError(`faucet wants an amount in coins (like 2 or 0.5), got ${JSON.stringify(rest[1])}`)
      return { name, address: rest[0]!, amount: rest[1] }
    }
    case 'backup':
    case 'restore':
      args(1, 1, 'one directory')
      return { name, dir: rest[0]! }
    case 'install-service':
      args(0, 0, 'no arguments')
      return { name, user: values.user, dataDir: values['data-dir'], cacheDir: values['cache-dir'], gethDir: values['geth-dir'], unitFile: values['unit-file'], envFile: values['environment-file'] }
    case 'keys':
      return parseKeysArgs(rest, values)
    case 'explorer-env':
      args(0, 0, 'no arguments')
      for (const option of ['api-url', 'app-url'] as const) {
        const value = values[option]
        if (value !== undefined && !/^https?:\/\/[^/\s]/.test(value)) throw new OpsUsageError(`--${option} wants an http(s) URL, got ${JSON.stringify(value)}`)
      }
      return { name, apiUrl: values['api-url'], appUrl: values['app-url'] }
    case 'stats':
      if (rest.length !== 1 || rest[0] !== 'rebuild') throw new OpsUsageError('stats takes rebuild')
      return { name: 'stats-rebuild' }
    case 'tag': {
      args(1, 2, 'an address and optionally a name (none removes the tag)')
      if (!isAddress(rest[0])) throw new OpsUsageError(`tag wants an address, got ${JSON.stringify(rest[0])}`)
      const tag = rest[1]?.trim()
      if (tag !== undefined && (tag.length === 0 || tag.length > MAX_TAG_LENGTH)) throw new OpsUsageError(`tag wants a name of 1 to ${MAX_TAG_LENGTH} characters`)
      return { name, address: rest[0]!, tag }
    }
    case 'signers':
      return parseSignersArgs(rest)
  }
}

function parseSignersArgs (rest: string[]): SignersCommand {
  const [action = 'list', address, ...more] = rest
  if (action === 'list' || action === 'self') {
    if (address !== undefined) throw new OpsUsageError(`signers ${action} takes no arguments`)
    return { name: 'signers', action }
  }
  if (action !== 'propose' && action !== 'remove' && action !== 'discard') throw new OpsUsageError(`signers takes list, self, propose, remove or discard, got ${JSON.stringify(action)}`)
  if (!isAddress(address) || more.length > 0) throw new OpsUsageError(`signers ${action} wants one address, got ${JSON.stringify(rest.slice(1).join(' '))}`)
  return { name: 'signers', action, address }
}

function isCommand (name: string | undefined): name is OpsCommandName {
  return name !== undefined && Object.hasOwn(COMMAND_USAGE, name)
}

function blockNumber (option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new OpsUsageError(`${option} wants a block number, got ${JSON.stringify(value)}`)
  return Number(value)
}
