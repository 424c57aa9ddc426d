// SOLC_DOWNLOAD: a version neither bundled nor cached is looked up in
// list.json, downloaded once into SOLC_CACHE_DIR and kept only when its
// keccak256 is the published one; failures are coded and cache nothing.
// The download site is a local HTTP server (test/support/solc-bin.ts).
import t from 'tap'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:http'
import { createCompiler } from '../../../core/verify/compiler.ts'
import { BUNDLED_VERSION } from '../../support/verify.ts'
import { startSolcBin } from '../../support/solc-bin.ts'

const V19 = 'v0.8.19+commit.7dd6d404'
const V20 = 'v0.8.20+commit.a1b79de6'
const V21 = 'v0.8.21+commit.d9974bed'
const bin = await startSolcBin(t, [
  { longVersion: V19.slice(1) },
  { longVersion: V20.slice(1), keccak256: '0x' + 'ab'.repeat(32) },
  { longVersion: V21.slice(1), served: false }
])

async function compilerIn (t: { teardown (fn: () => unknown): void }, baseUrl: string | undefined) {
  const dir = await mkdtemp(join(tmpdir(), 'tg-solc-download-'))
  t.teardown(async () => await rm(dir, { recursive: true, force: true }))
  return { dir, compiler: createCompiler({ cacheDir: dir, timeoutMs: 120_000, memoryMb: 512, download: baseUrl === undefined ? undefined : { baseUrl } }) }
}

t.test('a listed version is downloaded once, however many ask at once, and kept in the cache under its name', async (t) => {
  const { dir, compiler } = await compilerIn(t, bin.url)
  const answers = await Promise.all([compiler.resolveVersion(V19), compiler.resolveVersion('0.8.19'), compiler.resolveVersion(V19.slice(1))])
  t.same(answers, [V19, V19, V19], 'by full name, by release, without the v')
  t.equal(bin.requests.get(`/bin/soljson-${V19}.js`), 1, 'one download')
  t.same(await readdir(dir), [`soljson-${V19}.js`], 'the build alone, no partial file')
  t.ok((await readFile(join(dir, `soljson-${V19}.js`))).equals(bin.body), 'the bytes served')
  t.same(await compiler.listVersions(), [BUNDLED_VERSION, V19])
  t.equal(await compiler.resolveVersion(V19), V19)
  t.equal(bin.requests.get(`/bin/soljson-${V19}.js`), 1, 'a cached version is not downloaded again')
  t.equal(await compiler.resolveVersion(BUNDLED_VERSION), BUNDLED_VERSION)
})

t.test('offeredVersions(): those here, then the releases the list publishes; a site that does not answer is not waited for', async (t) => {
  const { compiler } = await compilerIn(t, bin.url)
  t.same(await compiler.offeredVersions(), [BUNDLED_VERSION, V21, V20, V19], 'newest first, the nightly left out')
  t.same(await compiler.listVersions(), [BUNDLED_VERSION], 'nothing is downloaded to offer it')
  // A site that takes the connection and never answers: the config does not wait for it (LIST_WAIT_MS).
  const silent = createServer(() => {})
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { silent.closeAllConnections(); silent.close() })
  const hanging = await compilerIn(t, `http://127.0.0.1:${(silent.address() as { port: number }).port}/bin`)
  await hanging.compiler.listVersions()
  const started = Date.now()
  t.same(await hanging.compiler.offeredVersions(), [BUNDLED_VERSION], 'a site that does not answer offers nothing more')
  t.ok(Date.now() - started < 10_000, `and is not waited for (${Date.now() - started} ms)`)
})

// The failures share one compiler (each makes one worker to learn the bundled version) and its directory, which stays empty.
const failing = await compilerIn(t, bin.url)

t.test('a build whose keccak256 is not the published one is refused and nothing is cached', async (t) => {
  const { dir, compiler } = failing
  await t.rejects(compiler.resolveVersion(V20), {
    code: 'GW_ERR_VERIFY_COMPILER_CHECKSUM_MISMATCH',
    statusCode: 502,
    message: new RegExp(`${V20.replace(/[.+]/g, '\\$&')} was refused: its keccak256 is 0x[0-9a-f]{64}, not the 0x(ab){32}`)
  })
  t.same(await readdir(dir), [], 'nothing written')
  await t.rejects(compiler.resolveVersion(V20), { code: 'GW_ERR_VERIFY_COMPILER_CHECKSUM_MISMATCH' }, 'and refused again')
})

t.test('a version the list does not publish (or only as a nightly) is unavailable, naming it', async (t) => {
  const { compiler } = failing
  for (const version of ['v0.7.6+commit.7338295f', 'v0.8.29-nightly.2024.10.1+commit.aaaaaaaa', '0.8.29', 'latest']) {
    await t.rejects(compiler.resolveVersion(version), { code: 'GW_ERR_VERIFY_COMPILER_UNAVAILABLE', statusCode: 400, message: /not a release the compiler list publishes/ }, version)
  }
  t.notOk(bin.requests.has('/bin/soljson-v0.8.29-nightly.2024.10.1+commit.aaaaaaaa.js'))
})

t.test('a listed build the site does not serve answers a coded 503 and caches nothing', async (t) => {
  const { dir, compiler } = failing
  await t.rejects(compiler.resolveVersion(V21), { code: 'GW_ERR_VERIFY_COMPILER_DOWNLOAD_FAILED', statusCode: 503, message: /v0\.8\.21\+commit\.d9974bed could not be downloaded: .*HTTP 404/ })
  t.same(await readdir(dir), [])
})

t.test('off-line (the site\'s port refuses): a coded 503 naming the version, those available and the remedies; nothing cached', async (t) => {
  const down = await startSolcBin(t, [{ longVersion: V19.slice(1) }])
  await down.close()
  const { dir, compiler: offline } = await compilerIn(t, down.url)
  await t.rejects(offline.resolveVersion(V19), {
    code: 'GW_ERR_VERIFY_COMPILER_OFFLINE',
    statusCode: 503,
    message: `Compiler version ${V19} is not on this gateway and could not be downloaded: ${down.url} cannot be reached (connect ECONNREFUSED ${new URL(down.url).host}). ` +
      `Verify with a version available here (${BUNDLED_VERSION}), or an operator can put soljson-${V19}.js into SOLC_CACHE_DIR, or point SOLC_DOWNLOAD_URL at a reachable mirror`
  })
  await t.rejects(offline.resolveVersion('0.8.19'), { code: 'GW_ERR_VERIFY_COMPILER_OFFLINE', message: /Compiler version 0\.8\.19 is not on this gateway .* its soljson build \(soljson-v0\.8\.19\+commit\.<hash>\.js\) into SOLC_CACHE_DIR/ }, 'a release without its commit')
  t.same(await readdir(dir), [])
  t.same(await offline.offeredVersions(), [BUNDLED_VERSION], 'a site that is down offers nothing more')
})

t.test('a site that goes down between the list and the build answers the same', async (t) => {
  const site = await startSolcBin(t, [{ longVersion: V19.slice(1) }])
  const { dir, compiler } = await compilerIn(t, site.url)
  t.same(await compiler.offeredVersions(), [BUNDLED_VERSION, V19], 'the list is read')
  await site.close()
  await t.rejects(compiler.resolveVersion(V19), { code: 'GW_ERR_VERIFY_COMPILER_OFFLINE', message: /could not be downloaded: .* cannot be reached \(connect ECONNREFUSED/ })
  t.same(await readdir(dir), [])
})

t.test('without SOLC_DOWNLOAD a missing version is named, with what would make it available', async (t) => {
  const { compiler } = await compilerIn(t, undefined)
  await t.rejects(compiler.resolveVersion(V19), {
    code: 'GW_ERR_VERIFY_COMPILER_UNAVAILABLE',
    message: `Compiler version ${V19} is not available here (available: ${BUNDLED_VERSION}); an operator can add its soljson build to SOLC_CACHE_DIR, or set SOLC_DOWNLOAD=true`
  })
  t.same(await compiler.offeredVersions(), [BUNDLED_VERSION], 'and only those here are offered')
})
