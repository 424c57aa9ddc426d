// npm run faults itself, on a tiny chain, so that the suite cannot rot: it
// starts its gateway, kills Geth under load, makes a reorg, revokes a key
// under its open sockets, fills the database's disk, prints a verdict row per
// scenario and exits 0. The other scenarios have files of their own in
// test/scripts/faults/ (each file keeps within tap's per-file timeout). Not
// part of npm test (minutes of scenarios): npm run test:scenarios runs them.
import t from 'tap'
import { runFaults } from '../support/run-faults.ts'

t.test('npm run faults on a tiny chain passes geth-kill, reorg and revoked-key and prints their rows', async (t) => {
  const { exitCode, out, all } = await runFaults({ FAULTS_ONLY: 'geth-kill,reorg,revoked-key', FAULTS_REORG_DEPTH: '3' })
  t.equal(exitCode, 0, all)
  t.match(out, /^Geth SIGKILL under JSON-RPC load +PASS +\d+ s$/m)
  t.match(out, /^ {2}down [\d.]+ s; \d+ reads: \d+ results, [1-9]\d* -32603/m, 'the kill was seen as -32603')
  t.match(out, /^ {2}verify-index: verified blocks 0\.\.\d+ \(\d+ blocks\): no mismatches$/m)
  t.match(out, /^reorg 3 blocks deep +PASS +\d+ s$/m)
  t.match(out, /^ {2}head \d+ set back to \d+, new branch sealed$/m)
  t.match(out, /^ {2}indexer rolled back to \d+$/m)
  t.match(out, /^API key revoked under open sockets +PASS +\d+ s$/m)
  t.match(out, /^ {2}key's sockets closed: JSON-RPC 1008 "API key revoked" by \d+ ms after ops exited; GraphQL 1008 .*; Phoenix 1008 /m)
  t.match(out, /^ {2}public sockets still open: 3 of 3$/m)
  t.notMatch(out, /postgres|backfill|disk full/, 'the other scenarios did not run')
  t.match(out, /\nfaults: PASS\n?$/)
})

t.test('npm run faults fills the database\'s disk and recovers (disk-full)', { skip: process.getuid?.() === 0 ? false : 'mounting a tmpfs needs root' }, async (t) => {
  const { exitCode, out, all } = await runFaults({ FAULTS_ONLY: 'disk-full', FAULTS_DISK_FULL_S: '5' })
  t.equal(exitCode, 0, all)
  t.match(out, /^database disk full 5 s +PASS +\d+ s$/m)
  t.match(out, /^ {2}[1-9]\d* disk-full lines logged; first: .*No space left on device/m, 'PostgreSQL ran out of space')
  t.match(out, /^ {2}verify-index: verified blocks 0\.\.\d+ \(\d+ blocks\): no mismatches$/m)
  t.match(out, /\nfaults: PASS\n?$/)
})
