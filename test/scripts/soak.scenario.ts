// npm run soak itself, for a few seconds on a tiny chain, so that the suite
// cannot rot: it starts its gateway, runs each phase of the mixed workload
// (idle, rate steps, with and without If-None-Match, sustained), prints the
// figures per interface and the checks, and exits 0. Not part of npm test (a
// workload, not a behaviour's check): npm run test:scenarios runs it.
import t from 'tap'
import { execa } from 'execa'

const REPO_ROOT = new URL('../../', import.meta.url).pathname

t.test('npm run soak for a few seconds passes and prints its figures', async (t) => {
  const run = await execa(process.execPath, ['--import', 'tsx', 'scripts/soak.ts'], {
    cwd: REPO_ROOT,
    reject: false,
    // The lag verdict is the full run's business: a few seconds on a loaded machine prove nothing of it.
    env: { SOAK_DURATION_S: '6', SOAK_CONCURRENCY: '2', SOAK_CHAIN_BLOCKS: '20', SOAK_CHAIN_TRANSACTIONS: '100', SOAK_MAX_LAG_BLOCKS: '50', SOAK_START_RATE: '10', SOAK_IDLE_RATE: '10', SOAK_SUBSCRIBERS: '2', SOAK_TRANSFER_INTERVAL_MS: '50' }
  })
  t.equal(run.exitCode, 0, String(run.stdout) + String(run.stderr))
  const out = String(run.stdout)
  // A second or so per phase: an interface may draw no request in the last one.
  for (const name of ['JSON-RPC', 'REST', 'GraphQL']) t.match(out, new RegExp(`^${name} +\\d+ +[\\d.]+ +[\\d.]+ ms +[\\d.]+ ms +0 +[\\d.]+ ms +[\\d.]+ ms$`, 'm'), `a row for ${name} with no failures`)
  t.match(out, /^all +[1-9]\d* +/m, 'requests in the sustained phase')
  t.match(out, /^idle \d+ +[\d.]+ +[\d.]+ ms +[\d.]+ ms +(\d+|-) +the reference$/m, 'the idle reference among the rate steps, with its lag')
  t.match(out, /^highest sustained rate: .*indexer lag at most 50 blocks\); /m, 'the rate is judged on the lag too, and says what bound it')
  // Whether a 304 comes in a second of a head that moves ten times a second is chance: test/plugins/http-cache proves them.
  t.match(out, /^sent +[\d.]+ +[\d.]+ +[\d.]+ ms +[\d.]+ ms +\d+ %/m, 'a row for clients sending If-None-Match')
  t.match(out, /^not sent +[\d.]+ +[\d.]+ +[\d.]+ ms +[\d.]+ ms +0 %/m)
  t.match(out, /^requests failed +0 +PASS$/m)
  t.match(out, /^gateway RSS after GC +[\d.]+ -> [\d.]+ MiB/m)
  // Measured: each phase is sampled as it begins, however short.
  t.match(out, /^indexer lag \(blocks\) +max \d+ idle and sustained .* PASS$/m)
  t.match(out, /^WebSocket subscribers +2 of 2 open and hearing +PASS$/m)
  t.match(out, /[1-9]\d* transfers sent through JSON-RPC \(0 refused\), one after another 50 ms apart; [1-9]\d* new heads/, 'SOAK_TRANSFER_INTERVAL_MS')
  t.match(out, /\nsoak: PASS\n?$/)
})
