// npm run soak itself, for a few seconds on a tiny chain, so that the suite
// cannot rot: it starts its gateway, runs the mixed workload, prints the
// figures per interface and the checks, and exits 0.
import t from 'tap'
import { execa } from 'execa'

const REPO_ROOT = new URL('../../', import.meta.url).pathname

t.test('npm run soak for a few seconds passes and prints its figures', async (t) => {
  const run = await execa(process.execPath, ['--import', 'tsx', 'scripts/soak.ts'], {
    cwd: REPO_ROOT,
    reject: false,
    env: { SOAK_DURATION_S: '6', SOAK_CONCURRENCY: '2', SOAK_CHAIN_BLOCKS: '20', SOAK_CHAIN_TRANSACTIONS: '100' }
  })
  t.equal(run.exitCode, 0, String(run.stdout) + String(run.stderr))
  const out = String(run.stdout)
  for (const name of ['JSON-RPC', 'REST', 'GraphQL']) t.match(out, new RegExp(`^${name} +[1-9]\\d* +[\\d.]+ +[\\d.]+ ms +[\\d.]+ ms +0$`, 'm'), `a row for ${name} with no failures`)
  t.match(out, /^requests failed +0 +PASS$/m)
  t.match(out, /^gateway RSS after GC +[\d.]+ -> [\d.]+ MiB/m)
  t.match(out, /^indexer lag \(blocks\) +max \d+, at the end \d+ +PASS$/m)
  t.match(out, /[1-9]\d* transfers sent through JSON-RPC/)
  t.match(out, /\nsoak: PASS\n?$/)
})

t.test('npm run soak refuses a bad knob with exit code 2', async (t) => {
  const run = await execa(process.execPath, ['--import', 'tsx', 'scripts/soak.ts'], { cwd: REPO_ROOT, reject: false, env: { SOAK_DURATION_S: '0' } })
  t.equal(run.exitCode, 2)
  t.match(String(run.stderr), /SOAK_DURATION_S must be a whole number >= 1, not 0/)
})
