// npm run faults itself, on a tiny chain and two of its scenarios, so that
// the suite cannot rot: it starts its gateway, kills Geth under load, makes
// a reorg, revokes a key under its open sockets, kills Geth with an upstream
// that answers meanwhile, holds 1,000 idle connections,
// sends oversized verification forms and random keys, prints a verdict row per
// scenario and exits 0.
import t from 'tap'
import { execa } from 'execa'

const REPO_ROOT = new URL('../../', import.meta.url).pathname

/** npm run faults on a tiny chain (20 blocks, 100 transactions) with `env`: its exit code and standard output. */
async function runFaults (env: Record<string, string>): Promise<{ exitCode: number | undefined, out: string, all: string }> {
  const run = await execa(process.execPath, ['--import', 'tsx', 'scripts/faults.ts'], {
    cwd: REPO_ROOT,
    reject: false,
    env: { FAULTS_CHAIN_BLOCKS: '20', FAULTS_CHAIN_TRANSACTIONS: '100', FAULTS_TIMEOUT_S: '240', ...env }
  })
  return { exitCode: run.exitCode, out: String(run.stdout), all: String(run.stdout) + String(run.stderr) }
}

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

t.test('npm run faults: Geth killed under load with an upstream peered to it (geth-kill-upstream): nearly no -32603 while it restarts', async (t) => {
  const { exitCode, out, all } = await runFaults({ FAULTS_ONLY: 'geth-kill-upstream' })
  t.equal(exitCode, 0, all)
  t.match(out, /^Geth SIGKILL under JSON-RPC load, with an upstream +PASS +\d+ s$/m)
  t.match(out, /^ {2}upstream synced \d+ blocks over p2p in [\d.]+ s$/m)
  t.match(out, /^ {2}down [\d.]+ s; \d+ reads: \d+ results, [0-5] -32603, 0 other; .* the upstream answered [1-9]\d* requests$/m)
  t.match(out, /^ {2}verify-index: verified blocks 0\.\.\d+ \(\d+ blocks\): no mismatches$/m)
  t.match(out, /\nfaults: PASS\n?$/)
})

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

t.test('npm run faults fills the database\'s disk and recovers (disk-full)', { skip: process.getuid?.() === 0 ? false : 'mounting a tmpfs needs root' }, async (t) => {
  const { exitCode, out, all } = await runFaults({ FAULTS_ONLY: 'disk-full', FAULTS_DISK_FULL_S: '5' })
  t.equal(exitCode, 0, all)
  t.match(out, /^database disk full 5 s +PASS +\d+ s$/m)
  t.match(out, /^ {2}[1-9]\d* disk-full lines logged; first: .*No space left on device/m, 'PostgreSQL ran out of space')
  t.match(out, /^ {2}verify-index: verified blocks 0\.\.\d+ \(\d+ blocks\): no mismatches$/m)
  t.match(out, /\nfaults: PASS\n?$/)
})

t.test('npm run faults refuses an unknown scenario with exit code 2', async (t) => {
  const run = await execa(process.execPath, ['--import', 'tsx', 'scripts/faults.ts'], { cwd: REPO_ROOT, reject: false, env: { FAULTS_ONLY: 'geth-kill,meteor' } })
  t.equal(run.exitCode, 2)
  t.match(String(run.stderr), /FAULTS_ONLY names no scenario: meteor/)
})
