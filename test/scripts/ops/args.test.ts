// The ops command line, parsed before anything starts.
import t from 'tap'
import { parseOpsArgs } from '../../../scripts/ops/args.ts'

t.test('parseOpsArgs() reads the commands and their block numbers', async (t) => {
  t.same(parseOpsArgs(['verify-index']), { name: 'verify-index', from: undefined, to: undefined })
  t.same(parseOpsArgs(['verify-index', '--from', '5', '--to', '9']), { name: 'verify-index', from: 5, to: 9 })
  t.same(parseOpsArgs(['verify-index', '--to=0']), { name: 'verify-index', from: undefined, to: 0 })
  t.same(parseOpsArgs(['reindex', '--from', '0']), { name: 'reindex', from: 0 })
  t.same(parseOpsArgs(['--help']), { name: 'help' })
  t.same(parseOpsArgs(['reindex', '-h']), { name: 'help' })
  t.same(parseOpsArgs(['help']), { name: 'help' })
  t.same(parseOpsArgs(['explorer-env']), { name: 'explorer-env', apiUrl: undefined, appUrl: undefined })
  t.same(parseOpsArgs(['explorer-env', '--api-url', 'https://api.example', '--app-url=http://localhost:3001']),
    { name: 'explorer-env', apiUrl: 'https://api.example', appUrl: 'http://localhost:3001' })
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
    [['explorer-env', 'now'], /explorer-env takes no arguments/],
    [['explorer-env', '--from', '1'], /takes no --from/],
    [['verify-index', '--app-url', 'http://x'], /explorer-env's/]
  ]
  for (const [argv, message] of cases) {
    t.throws(() => parseOpsArgs(argv), { code: 'GW_ERR_OPS_USAGE', message }, argv.join(' ') || '(nothing)')
  }
})
