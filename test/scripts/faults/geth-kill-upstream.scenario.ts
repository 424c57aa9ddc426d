// npm run faults' geth-kill-upstream scenario on a tiny chain: Geth killed
// under JSON-RPC load while an upstream peered to it answers meanwhile.
import t from 'tap'
import { runFaults } from '../../support/run-faults.ts'

t.test('npm run faults: Geth killed under load with an upstream peered to it (geth-kill-upstream): nearly no -32603 while it restarts', async (t) => {
  const { exitCode, out, all } = await runFaults({ FAULTS_ONLY: 'geth-kill-upstream' })
  t.equal(exitCode, 0, all)
  t.match(out, /^Geth SIGKILL under JSON-RPC load, with an upstream +PASS +\d+ s$/m)
  t.match(out, /^ {2}upstream synced \d+ blocks over p2p in [\d.]+ s$/m)
  t.match(out, /^ {2}down [\d.]+ s; \d+ reads: \d+ results, [0-5] -32603, 0 other; .* the upstream answered [1-9]\d* requests$/m)
  t.match(out, /^ {2}verify-index: verified blocks 0\.\.\d+ \(\d+ blocks\): no mismatches$/m)
  t.match(out, /\nfaults: PASS\n?$/)
})
