// The compiler pool: versions offered (bundled, SOLC_CACHE_DIR's), a run in
// a worker thread, the time cap, a version that is nowhere, one run per slot
// with a bounded wait.
import t from 'tap'
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { blockscoutVersion, createCompiler } from '../../../core/verify/compiler.ts'
import { BUNDLED_VERSION, readFixture, standardInput } from '../../support/verify.ts'

const dir = await mkdtemp(join(tmpdir(), 'tg-solc-'))
t.teardown(async () => await rm(dir, { recursive: true, force: true }))
const soljson = createRequire(import.meta.url).resolve('solc/soljson.js')
// A build named for another version than it holds, and a file that is no build.
await copyFile(soljson, join(dir, 'soljson-v0.8.19+commit.7dd6d404.js'))
await writeFile(join(dir, 'notes.txt'), 'not a compiler')
const input = standardInput({ 'VerifiedToken.sol': await readFixture('VerifiedToken.sol') })

t.test('blockscoutVersion() spells a solc version as Blockscout does', async (t) => {
  t.equal(blockscoutVersion('0.8.28+commit.7893614a.Emscripten.clang'), 'v0.8.28+commit.7893614a')
  t.equal(blockscoutVersion('v0.8.20+commit.a1b79de6'), 'v0.8.20+commit.a1b79de6')
})

t.test('the bundled compiler compiles in a worker; versions list it first, then the cache\'s', async (t) => {
  const compiler = createCompiler({ cacheDir: dir, timeoutMs: 120_000, memoryMb: 512 })
  t.equal(await compiler.bundledVersion(), BUNDLED_VERSION)
  t.same(await compiler.listVersions(), [BUNDLED_VERSION, 'v0.8.19+commit.7dd6d404'])
  t.equal(await compiler.resolveVersion(BUNDLED_VERSION.slice(1)), BUNDLED_VERSION, 'without the v')
  t.equal(await compiler.resolveVersion('0.8.28'), BUNDLED_VERSION, 'a bare version')
  const output = await compiler.compile(BUNDLED_VERSION, input)
  t.match(output.contracts?.['VerifiedToken.sol']?.VerifiedToken?.evm.bytecode.object, /^60[0-9a-f]{2}604052/, 'creation code')
  await t.rejects(compiler.resolveVersion('v0.7.6+commit.7338295f'), { code: 'GW_ERR_VERIFY_COMPILER_UNAVAILABLE', message: /v0\.7\.6\+commit\.7338295f/ })
  await t.rejects(compiler.compile('v0.8.19+commit.7dd6d404', input), { code: 'GW_ERR_VERIFY_COMPILER_FAILED', message: /holds 0\.8\.28/ },
    'a cached file holding another version than its name says is refused')
})

t.test('a compilation past the time cap is stopped with a coded error', async (t) => {
  const compiler = createCompiler({ cacheDir: undefined, timeoutMs: 50, memoryMb: 512 })
  t.equal(await compiler.bundledVersion(), BUNDLED_VERSION, 'loading the compiler to learn its version is not held to the compile cap')
  const started = Date.now()
  await t.rejects(compiler.compile('v0.8.28+commit.7893614a', input), { code: 'GW_ERR_VERIFY_COMPILE_TIMEOUT', message: /50 ms/ })
  t.ok(Date.now() - started < 30_000, 'answered without waiting for the compiler')
})

t.test('a compilation past the heap cap is stopped with a coded error, and the next one runs', async (t) => {
  // 16 MB cannot even hold the compiler's source.
  const small = createCompiler({ cacheDir: undefined, timeoutMs: 120_000, memoryMb: 16, concurrency: 1 })
  await t.rejects(small.compile('v0.8.28+commit.7893614a', input), { code: 'GW_ERR_VERIFY_COMPILER_FAILED', message: /memory limit/ })
  await t.rejects(small.compile('v0.8.28+commit.7893614a', input), { code: 'GW_ERR_VERIFY_COMPILER_FAILED' }, 'its slot was given back')
})

t.test('close() stops a compilation under way', async (t) => {
  const compiler = createCompiler({ cacheDir: undefined, timeoutMs: 120_000, memoryMb: 512 })
  const running = compiler.compile('v0.8.28+commit.7893614a', input)
  await new Promise((resolve) => setTimeout(resolve, 100))
  const started = Date.now()
  await compiler.close()
  await t.rejects(running, { code: 'GW_ERR_VERIFY_COMPILER_FAILED' })
  t.ok(Date.now() - started < 30_000)
})

t.test('one compilation per slot: the next waits for the slot, and one past the waiting limit is refused with 503 at once', async (t) => {
  const TIMEOUT_MS = 12_000
  const compiler = createCompiler({ cacheDir: undefined, timeoutMs: TIMEOUT_MS, memoryMb: 512, concurrency: 1, maxWaiting: 1 })
  t.teardown(async () => await compiler.close())
  // Learning the version takes the slot for a moment too: done first.
  await compiler.bundledVersion()
  // The optimizer's step sequence repeated 50 000 times: a valid input that keeps solc busy for minutes.
  const spin = standardInput({ 'VerifiedToken.sol': await readFixture('VerifiedToken.sol') }, {
    viaIR: true,
    optimizer: { enabled: true, details: { yul: true, yulDetails: { optimizerSteps: 'dhfoDgvulfnTUtnIf'.repeat(50_000) + ':fDnTOc' } } }
  })
  const ended: string[] = []
  const spinning = compiler.compile(BUNDLED_VERSION, spin).finally(() => ended.push('spinning'))
  spinning.catch(() => undefined)
  await sleep(200)
  const waiting = compiler.compile(BUNDLED_VERSION, input).finally(() => ended.push('waiting'))
  waiting.catch(() => undefined)
  const started = Date.now()
  await t.rejects(compiler.compile(BUNDLED_VERSION, input), { code: 'GW_ERR_VERIFY_BUSY', statusCode: 503, message: 'Too many verifications waiting (1): try again shortly' })
  t.ok(Date.now() - started < 1000, 'refused at once, not queued')
  await t.rejects(spinning, { code: 'GW_ERR_VERIFY_COMPILE_TIMEOUT' }, 'the run holding the slot ends at the time cap')
  t.match((await waiting).contracts?.['VerifiedToken.sol']?.VerifiedToken?.evm.bytecode.object, /^60[0-9a-f]{2}604052/, 'then the waiting one compiles')
  t.same(ended, ['spinning', 'waiting'], 'the waiting one ran only once the slot was given back')
})
