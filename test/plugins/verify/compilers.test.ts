// Verification's compilers and caps through the routes, on a real chain:
// SOLC_DOWNLOAD against a local stand-in for binaries.soliditylang.org (a
// downloaded version that is not the contract's, a build with the wrong
// keccak256, the site down), a compilation that would run for minutes (the
// time cap holds) and 50 MB bodies. Each answers a clear error and stores
// nothing; none is a 500.
import t from 'tap'
import { request } from 'node:http'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { AbiCoder } from 'ethers'
import { build } from '../../helper.ts'
import { writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { startSolcBin } from '../../support/solc-bin.ts'
import { BUNDLED_VERSION, compileStandard, createSender, readFixture, standardInput } from '../../support/verify.ts'
import { findVerifiedContract } from '../../../core/verify/index.ts'

const V19 = 'v0.8.19+commit.7dd6d404'
const V20 = 'v0.8.20+commit.a1b79de6'
const V21 = 'v0.8.21+commit.d9974bed'
const COMPILE_TIMEOUT_MS = 15_000
const bin = await startSolcBin(t, [{ longVersion: V19.slice(1) }, { longVersion: V20.slice(1), keccak256: '0x' + 'ab'.repeat(32) }, { longVersion: V21.slice(1) }])
const cacheDir = await mkdtemp(join(tmpdir(), 'tg-solc-cache-'))
t.teardown(async () => await rm(cacheDir, { recursive: true, force: true }))
const { wallets, allocFile } = await writeFundedAlloc(t, 1)
const { app, url } = await build(t, {
  GENESIS_ALLOC: allocFile,
  SOLC_DOWNLOAD: 'true',
  SOLC_DOWNLOAD_URL: bin.url,
  SOLC_CACHE_DIR: cacheDir,
  VERIFY_COMPILE_TIMEOUT_MS: String(COMPILE_TIMEOUT_MS)
})
const source = await readFixture('VerifiedToken.sol')
const input = standardInput({ 'VerifiedToken.sol': source })
const token = await createSender(app.geth.rpc, wallets[0]!)
  .deploy(compileStandard(input, 'VerifiedToken.sol', 'VerifiedToken').bytecode + AbiCoder.defaultAbiCoder().encode(['string', 'string', 'uint256', 'uint256'], ['T', 'T', 1n, 2n]).slice(2))
await waitForIndexed(app)
const via = `/api/v2/smart-contracts/${token.address}/verification/via/standard-input`

/** Blockscout's front end's request: the standard JSON input as files[0]. */
async function verifyWith (compilerVersion: string, standardJson: object = input) {
  const form = new FormData()
  form.append('compiler_version', compilerVersion)
  form.append('files[0]', new Blob([JSON.stringify(standardJson)]), 'input.json')
  const response = await fetch(url + via, { method: 'POST', body: form })
  return { status: response.status, json: await response.json() as any }
}

t.test('SOLC_DOWNLOAD fetches a version into SOLC_CACHE_DIR; one that is not the contract\'s answers the mismatch', async (t) => {
  const offered = async () => (await app.inject({ method: 'GET', url: '/api/v2/smart-contracts/verification/config' })).json().solidity_compiler_versions
  t.same(await offered(), [BUNDLED_VERSION, V21, V20, V19], 'the download site\'s releases are offered before any is fetched (the front end\'s version picker)')
  t.same(await verifyWith(V19), { status: 400, json: { message: `The contract was compiled with solc ${BUNDLED_VERSION.slice(1).split('+')[0]} (its metadata says so), not ${V19}` } })
  t.same(await readdir(cacheDir), [`soljson-${V19}.js`])
  t.same(await offered(), [BUNDLED_VERSION, V19, V21, V20], 'then among those here, the downloadable ones after')
})

t.test('a downloaded build whose keccak256 is not the published one: 502 with the reason, nothing cached; the Etherscan route fails the job', async (t) => {
  const answer = await verifyWith(V20)
  t.equal(answer.status, 502)
  t.match(answer.json.message, `The downloaded build of compiler version ${V20} was refused: its keccak256 is`)
  t.notOk((await readdir(cacheDir)).some((name) => name.includes('0.8.20')))

  const body = new URLSearchParams({
    module: 'contract',
    action: 'verifysourcecode',
    contractaddress: token.address,
    sourceCode: JSON.stringify(input),
    codeformat: 'solidity-standard-json-input',
    contractname: 'VerifiedToken.sol:VerifiedToken',
    compilerversion: V20
  })
  const { result: guid } = await (await fetch(`${url}/api`, { method: 'POST', body })).json() as { result: string }
  let status: any
  for (let i = 0; i < 300; i++) {
    status = (await app.inject({ method: 'GET', url: `/api?module=contract&action=checkverifystatus&guid=${guid}` })).json()
    if (status.result !== 'Pending in queue') break
    await sleep(200)
  }
  t.match(status, { status: '0', result: 'Fail - Unable to verify', message: /keccak256/ })
})

t.test('the download site down (off-line): 503 naming the version and the remedies, nothing cached, and the next request tries again', async (t) => {
  await bin.close()
  const answer = await verifyWith(V21)
  t.equal(answer.status, 503)
  t.match(answer.json.message, new RegExp(`^Compiler version ${V21.replace(/[.+]/g, '\\$&')} is not on this gateway and could not be downloaded: .+ cannot be reached .+ or an operator can put soljson-${V21.replace(/[.+]/g, '\\$&')}\\.js into SOLC_CACHE_DIR`))
  t.same(await readdir(cacheDir), [`soljson-${V19}.js`])
  t.equal((await verifyWith(V21)).status, 503)
})

t.test('a compilation that would run for minutes is stopped at VERIFY_COMPILE_TIMEOUT_MS; the gateway answers on', async (t) => {
  // The optimizer's step sequence repeated 50 000 times: a valid input that keeps solc busy for minutes.
  const spin = standardInput({ 'VerifiedToken.sol': source }, {
    viaIR: true,
    optimizer: { enabled: true, details: { yul: true, yulDetails: { optimizerSteps: 'dhfoDgvulfnTUtnIf'.repeat(50_000) + ':fDnTOc' } } }
  })
  const started = Date.now()
  const answer = await verifyWith(BUNDLED_VERSION, spin)
  t.same(answer, { status: 400, json: { message: `Compilation took longer than ${COMPILE_TIMEOUT_MS} ms and was stopped` } })
  t.ok(Date.now() - started < COMPILE_TIMEOUT_MS + 30_000, `answered in ${Date.now() - started} ms`)
  t.equal((await app.inject({ method: 'GET', url: `/api/v2/smart-contracts/${token.address}` })).statusCode, 200)
})

/** Sends `bytes` bytes of body and reads the answer, even when the server answers before the body is all sent. */
async function postLarge (path: string, contentType: string, prefix: string, bytes: number, suffix = ''): Promise<{ status: number, json: any }> {
  return await new Promise((resolve, reject) => {
    const req = request(url + path, { method: 'POST', headers: { 'content-type': contentType, 'content-length': String(bytes) } }, (response) => {
      let text = ''
      response.setEncoding('utf8').on('data', (chunk) => { text += chunk }).on('end', () => resolve({ status: response.statusCode!, json: JSON.parse(text) }))
    })
    req.on('error', reject)
    const chunk = Buffer.alloc(1024 * 1024, 'a')
    let sent = Buffer.byteLength(prefix) + Buffer.byteLength(suffix)
    req.write(prefix)
    const pump = () => {
      while (sent < bytes && !req.destroyed) {
        const piece = chunk.subarray(0, Math.min(chunk.length, bytes - sent))
        sent += piece.length
        if (!req.write(piece)) return req.once('drain', pump)
      }
      req.end(suffix)
    }
    pump()
  })
}

t.test('50 MB bodies are refused with 413 and a JSON answer on every verification route', async (t) => {
  const size = 50 * 1024 * 1024
  const json = await postLarge(via, 'application/json', '{"compiler_version":"' + BUNDLED_VERSION + '","input":"', size)
  t.equal(json.status, 413, 'REST, JSON')
  t.match(json.json, { message: /too large/i })
  const boundary = 'tgboundary'
  const multipart = await postLarge(via, `multipart/form-data; boundary=${boundary}`,
    `--${boundary}\r\ncontent-disposition: form-data; name="compiler_version"\r\n\r\n${BUNDLED_VERSION}\r\n--${boundary}\r\ncontent-disposition: form-data; name="files[0]"; filename="input.json"\r\ncontent-type: application/json\r\n\r\n`, size, `\r\n--${boundary}--\r\n`)
  t.equal(multipart.status, 413, 'REST, multipart')
  t.match(multipart.json, { message: /too large/i })
  const cut = await postLarge(via, `multipart/form-data; boundary=${boundary}`, `--${boundary}\r\ncontent-disposition: form-data; name="files[0]"; filename="input.json"\r\n\r\n`, 1024)
  t.match(cut, { status: 400, json: { message: /^Invalid verification request: the multipart body could not be read/ } }, 'a multipart body cut short: 400, not 500')
  const form = await postLarge('/api', 'application/x-www-form-urlencoded', 'module=contract&action=verifysourcecode&sourceCode=', size)
  t.equal(form.status, 413, 'Etherscan-style form')
  t.match(form.json, { status: '0', message: 'NOTOK', result: /too large/i })
  t.equal(await findVerifiedContract(app.db.knex, token.address), null, 'nothing of it all was stored')
})
