// npm run faults' hostile-client scenarios on a tiny chain: 1,000 idle
// connections, oversized verification forms and random API keys from a spent
// address (idle-connections, upload-size, unknown-keys).
import t from 'tap'
import { runFaults } from '../../support/run-faults.ts'

t.test('npm run faults: 1,000 idle connections (another client answered promptly), two oversized verification forms (413 each, memory held), 5,000 random keys from a spent address (429 each, no lookup)', async (t) => {
  const { exitCode, out, all } = await runFaults({ FAULTS_ONLY: 'idle-connections,upload-size,unknown-keys' })
  t.equal(exitCode, 0, all)
  t.match(out, /^1000 idle connections from one address +PASS +\d+ s$/m)
  t.match(out, /^ {2}[1-9]\d* closed at once, \d+ held; another address: \/health 200 in \d+ ms, eth_blockNumber 200 in \d+ ms$/m)
  t.match(out, /^ {2}the held ones closed by the gateway within [\d.]+ s; the attacker's address then: \/health 200$/m)
  t.match(out, /^ {2}verify-index: verified blocks 0\.\.\d+ \(\d+ blocks\): no mismatches$/m)
  t.match(out, /^2 verification forms of 50 files of 10 MB at once +PASS +\d+ s$/m)
  t.match(out, /^ {2}answers 413, 413 after \d+, \d+ of 500 MiB written; gateway RSS \d+ MiB before, \d+ MiB at most; \/health 200$/m)
  t.match(out, /^5000 random API keys from a spent address +PASS +\d+ s$/m)
  t.match(out, /^ {2}budget spent after 100 requests; 5000 random keys in [\d.]+ s: 5000 x 429; api_keys lookups meanwhile: 0; another address: 200$/m)
  t.match(out, /\nfaults: PASS\n?$/)
})
