// The ops command line, parsed before anything starts.
import t from 'tap'
import { parseOpsArgs } from '../../../scripts/ops/args.ts'

t.test('parseOpsArgs() reads the commands and their block numbers', async (t) => {
  t.same(parseOpsArgs(['verify-index']), { name: 'verify-index', from: undefined, to: undefined })
  t.same(parseOpsArgs(['verify-index', '--from', '5', '--to', '9']), { name: 'verify-index', from: 5, to: 9 })
  t.same(parseOpsArgs(['verify-index', '--to=0']), { name: 'verify-index', from: undefined, to: 0 })
  t.same(parseOpsArgs(['reindex', '--from', '0']), { name: 'reindex', from: 0 })
  t.same(parseOpsArgs(['--help']), { name: 'help', command: undefined })
  t.same(parseOpsArgs(['explorer-env']), { name: 'explorer-env', apiUrl: undefined, appUrl: undefined })
  t.same(parseOpsArgs(['explorer-env', '--api-url', 'https://api.example', '--app-url=http://localhost:3001']),
    { name: 'explorer-env', apiUrl: 'https://api.example', appUrl: 'http://localhost:3001' })
  t.same(parseOpsArgs(['reindex', '-h']), { name: 'help', command: 'reindex' })
  t.same(parseOpsArgs(['help']), { name: 'help', command: undefined })
  t.same(parseOpsArgs(['help', 'status']), { name: 'help', command: 'status' })
  t.same(parseOpsArgs(['status']), { name: 'status', json: false })
  t.same(parseOpsArgs(['status', '--json']), { name: 'status', json: true })
  const address = '0x000000000000000000000000000000000000dEaD'
  t.same(parseOpsArgs(['faucet', address]), { name: 'faucet', address, amount: undefined })
  t.same(parseOpsArgs(['faucet', address, '2.5']), { name: 'faucet', address, amount: '2.5' })
  t.same(parseOpsArgs(['install-service', '--user', 'u', '--data-dir', '/d']), { name: 'install-service', user: 'u', dataDir: '/d', cacheDir: undefined, gethDir: undefined, unitFile: undefined, envFile: undefined })
  t.same(parseOpsArgs(['install-service', '--cache-dir', '/c', '--geth-dir', '/g']), { name: 'install-service', user: undefined, dataDir: undefined, cacheDir: '/c', gethDir: '/g', unitFile: undefined, envFile: undefined })
})

t.test('parseOpsArgs() refuses what it cannot run, saying why', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [[], /no command given/],
    [['bogus'], /unknown command "bogus"/],
    [['verify-index', 'reindex'], /one command at a time/],
    [['reindex'], /reindex needs --from N/],
    [['reindex', '--from', '1', '--to', '3'], /takes no --to/],
    [['verify-index', '--from', 'x'], /--from wants a block number, got "x"/],
    [['verify-index', '--to', '-1'], /--to/],
    [['verify-index', '--from', '1.5'], /--from wants a block number/],
    [['verify-index', '--from', '5', '--to', '2'], /--from 5 is above --to 2/],
    [['verify-index', '--bogus'], /Unknown option '--bogus'/],
    [['explorer-env', '--api-url', 'api.example'], /--api-url wants an http\(s\) URL/],
    [['explorer-env', 'now'], /one command at a time/],
    [['explorer-env', '--from', '1'], /takes no --from/],
    [['verify-index', '--app-url', 'http://x'], /verify-index takes no --app-url/],
    [['status', '--from', '1'], /status takes no --from/],
    [['verify-index', '--json'], /verify-index takes no --json/],
    [['faucet'], /faucet takes an address/],
    [['faucet', '0x1234'], /faucet wants an address, got "0x1234"/],
    [['faucet', '0x000000000000000000000000000000000000dEaD', '-1'], /Unknown option|faucet wants an amount/],
    [['faucet', '0x000000000000000000000000000000000000dEaD', 'lots'], /faucet wants an amount in coins/],
    [['install-service', 'now'], /one command at a time/]
  ]
  for (const [argv, message] of cases) {
    t.throws(() => parseOpsArgs(argv), { code: 'GW_ERR_OPS_USAGE', message }, argv.join(' ') || '(nothing)')
  }
})

t.test('parseOpsArgs() reads signers and its votes', async (t) => {
  const address = '0x000000000000000000000000000000000000dEaD'
  t.same(parseOpsArgs(['signers']), { name: 'signers', action: 'list' })
  t.same(parseOpsArgs(['signers', 'list']), { name: 'signers', action: 'list' })
  t.same(parseOpsArgs(['signers', 'self']), { name: 'signers', action: 'self' })
  for (const action of ['propose', 'remove', 'discard'] as const) t.same(parseOpsArgs(['signers', action, address]), { name: 'signers', action, address })
  t.throws(() => parseOpsArgs(['signers', 'propose']), /signers propose wants one address/)
  t.throws(() => parseOpsArgs(['signers', 'propose', 'nope']), /signers propose wants one address, got "nope"/)
  t.throws(() => parseOpsArgs(['signers', 'remove', address, address]), /wants one address/)
  t.throws(() => parseOpsArgs(['signers', 'vote', address]), /signers takes list, self, propose, remove or discard/)
  t.throws(() => parseOpsArgs(['signers', 'self', address]), /signers self takes no arguments/)
})
