// npm run fuzz itself, on a tiny budget, so that the suite cannot rot: it
// starts its gateway, fuzzes every interface (WebSocket sessions too),
// prints its summary and exits 0.
import t from 'tap'
import { execa } from 'execa'

const REPO_ROOT = new URL('../../', import.meta.url).pathname

t.test('npm run fuzz on a tiny budget passes and prints its summary', async (t) => {
  const run = await execa(process.execPath, ['--import', 'tsx', 'scripts/fuzz.ts'], {
    cwd: REPO_ROOT,
    reject: false,
    env: { FUZZ_REQUESTS: '120', FUZZ_DURATION_S: '60', FUZZ_SEED: '7', FUZZ_STREAMS: '1', FUZZ_CHAIN_BLOCKS: '20', FUZZ_CHAIN_TRANSACTIONS: '100' }
  })
  t.equal(run.exitCode, 0, String(run.stdout) + String(run.stderr))
  const out = String(run.stdout)
  for (const name of ['JSON-RPC', 'REST', 'GraphQL', 'Etherscan /api', 'JSON-RPC WebSocket', 'GraphQL WebSocket']) t.match(out, new RegExp(`^${name.replace('/', '\\/')} +\\d+ .* PASS$`, 'm'), `a PASS row for ${name}`)
  t.match(out, /^gateway process alive +yes +PASS$/m)
  t.match(out, /^\/health at the end +HTTP 200 +PASS$/m)
  t.match(out, /^gateway RSS after GC +[\d.]+ -> [\d.]+ MiB/m)
  t.match(out, /REST routes from|\d+ REST routes/)
  t.match(out, /\nfuzz: PASS\n?$/)
})

t.test('npm run fuzz refuses a bad knob with exit code 2', async (t) => {
  const run = await execa(process.execPath, ['--import', 'tsx', 'scripts/fuzz.ts'], { cwd: REPO_ROOT, reject: false, env: { FUZZ_REQUESTS: 'many' } })
  t.equal(run.exitCode, 2)
  t.match(String(run.stderr), /FUZZ_REQUESTS must be a whole number >= 1, not many/)
})
