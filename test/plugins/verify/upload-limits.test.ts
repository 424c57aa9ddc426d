// Verification uploads against VERIFY_MAX_BODY_BYTES and
// VERIFY_MAX_SOURCES_BYTES over real sockets: a form streamed far past the
// cap answers 413 in each channel's shape once the cap has arrived, the rest
// unread and the connection closed; a 413 for too many files closes a
// kept-alive connection at once (it waited for the request timeout before);
// a form without its closing boundary answers 400 (before: 422, or the
// verification of its first parts); sources over their cap answer 413 on
// every route; a form within the caps still verifies.
import t from 'tap'
import { connect } from 'node:net'
import { AbiCoder } from 'ethers'
import { build } from '../../helper.ts'
import { writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { BUNDLED_VERSION, compileStandard, createSender, readFixture, standardInput } from '../../support/verify.ts'
import { findVerifiedContract } from '../../../core/verify/index.ts'

const MIB = 1024 * 1024
const MAX_BODY_BYTES = MIB
const MAX_SOURCES_BYTES = 32 * 1024
/** What a streamed form sends in all: 50 times the cap, as 50 files of 1 MiB. */
const STREAMED_BYTES = 50 * MIB
/** The kernel's socket buffers on both ends take some of a refused body before the writer blocks. */
const UNREAD_AT_LEAST = STREAMED_BYTES / 2
/** A refused connection is closed right after its answer; left open, it waited for the request timeout. */
const CLOSED_WITHIN_MS = 2000

const { wallets, allocFile } = await writeFundedAlloc(t, 1)
const { app, url } = await build(t, {
  GENESIS_ALLOC: allocFile,
  VERIFY_MAX_BODY_BYTES: String(MAX_BODY_BYTES),
  VERIFY_MAX_SOURCES_BYTES: String(MAX_SOURCES_BYTES)
})
const port = Number(new URL(url).port)
const source = await readFixture('VerifiedToken.sol')
const input = standardInput({ 'VerifiedToken.sol': source })
const sender = createSender(app.geth.rpc, wallets[0]!)
const deploy = async () => await sender.deploy(compileStandard(input, 'VerifiedToken.sol', 'VerifiedToken').bytecode +
  AbiCoder.defaultAbiCoder().encode(['string', 'string', 'uint256', 'uint256'], ['T', 'T', 1n, 2n]).slice(2))
const [refused, accepted] = [await deploy(), await deploy()]
await waitForIndexed(app)
const via = (address: string, method: string) => `/api/v2/smart-contracts/${address}/verification/via/${method}`

const BOUNDARY = 'tgboundary'
const field = (name: string, value: string) => `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
const fileHead = (name: string, filename: string) => `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${name}"; filename="${filename}"\r\ncontent-type: text/plain\r\n\r\n`
const CLOSE = `--${BOUNDARY}--\r\n`

type Exchange = { status: number, head: string, json: any, written: number, closedAfterMs: number | undefined }

/**
 * Sends `head` and then `pieces` on a connection of its own (chunked when the
 * head says so), stops writing once an answer or a close comes, then sends
 * `next` on the same connection and waits up to 5 s for it to close.
 */
async function exchange (head: string, pieces: Iterable<Buffer | string>, next?: string): Promise<Exchange> {
  const socket = connect({ port, host: '127.0.0.1' })
  socket.on('error', () => {})
  await new Promise((resolve) => socket.once('connect', resolve))
  const chunked = /transfer-encoding: chunked/i.test(head)
  let received = Buffer.alloc(0)
  let answeredAt: number | undefined
  let closedAt: number | undefined
  const answered = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      const end = received.indexOf('\r\n\r\n')
      const length = /content-length: (\d+)/i.exec(received.subarray(0, end).toString())
      if (end >= 0 && length !== null && received.length >= end + 4 + Number(length[1]) && answeredAt === undefined) {
        answeredAt = Date.now()
        resolve()
      }
    })
    socket.on('close', () => { closedAt = Date.now(); resolve() })
  })
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  let written = 0
  socket.write(head)
  for (const piece of pieces) {
    if (answeredAt !== undefined || closedAt !== undefined) break
    const bytes = Buffer.from(piece)
    written += bytes.length
    const ok = socket.write(chunked ? Buffer.concat([Buffer.from(bytes.length.toString(16) + '\r\n'), bytes, Buffer.from('\r\n')]) : bytes)
    if (!ok) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), answered])
  }
  if (chunked && answeredAt === undefined && closedAt === undefined) socket.write('0\r\n\r\n')
  await Promise.race([answered, new Promise((resolve) => setTimeout(resolve, 60_000))])
  if (next !== undefined && closedAt === undefined) socket.write(next)
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5000))])
  socket.destroy()
  const text = received.toString()
  const end = text.indexOf('\r\n\r\n')
  return {
    status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0),
    head: text.slice(0, end),
    json: end >= 0 ? JSON.parse(text.slice(end + 4).split('HTTP/1.1')[0]!) : undefined,
    written,
    closedAfterMs: answeredAt !== undefined && closedAt !== undefined ? closedAt - answeredAt : undefined
  }
}

const requestHead = (path: string, headers: string) => `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: multipart/form-data; boundary=${BOUNDARY}\r\n${headers}\r\n`

function * fiftyFiles (): Generator<string> {
  yield field('compiler_version', BUNDLED_VERSION)
  for (let i = 0; i < STREAMED_BYTES / MIB; i++) {
    yield fileHead(`files[${i}]`, `F${i}.sol`)
    for (let k = 0; k < 16; k++) yield 'a'.repeat(MIB / 16)
    yield '\r\n'
  }
  yield CLOSE
}

t.test('a multipart form streamed to 50 times VERIFY_MAX_BODY_BYTES (no Content-Length) answers 413 once the cap has arrived, the rest unread, the connection closed', async (t) => {
  const answer = await exchange(requestHead(via(refused.address, 'multi-part'), 'transfer-encoding: chunked\r\n'), fiftyFiles())
  t.equal(answer.status, 413)
  t.same(answer.json, { message: `Request body is too large: over ${MAX_BODY_BYTES} bytes (VERIFY_MAX_BODY_BYTES)` })
  t.match(answer.head, /^connection: close$/mi)
  t.ok(answer.written < STREAMED_BYTES - UNREAD_AT_LEAST, `the gateway stopped reading: ${(answer.written / MIB).toFixed(1)} MiB of ${STREAMED_BYTES / MIB} written`)
  t.ok(answer.closedAfterMs !== undefined && answer.closedAfterMs < CLOSED_WITHIN_MS, `closed ${answer.closedAfterMs} ms after the answer`)
  const declared = await exchange(requestHead(via(refused.address, 'multi-part'), `content-length: ${STREAMED_BYTES}\r\n`), fiftyFiles())
  t.equal(declared.status, 413, 'a Content-Length over the cap: 413 before the body is read')
  t.ok(declared.written < STREAMED_BYTES - UNREAD_AT_LEAST, `${(declared.written / MIB).toFixed(1)} MiB written`)
  t.equal(await findVerifiedContract(app.db.knex, refused.address), null)
})

t.test('the Etherscan-style /api answers a form over the cap 413 in its envelope, without reading it all', async (t) => {
  const pieces = function * () {
    yield `module=contract&action=verifysourcecode&contractaddress=${refused.address}&sourceCode=`
    for (let i = 0; i < STREAMED_BYTES / MIB; i++) yield 'a'.repeat(MIB)
  }
  const answer = await exchange('POST /api HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-www-form-urlencoded\r\ntransfer-encoding: chunked\r\n\r\n', pieces())
  t.equal(answer.status, 413)
  t.match(answer.json, { status: '0', message: 'NOTOK', result: /too large/i })
  t.ok(answer.written < STREAMED_BYTES - UNREAD_AT_LEAST, `${(answer.written / MIB).toFixed(1)} MiB written`)
})

t.test('a 413 for too many files closes the kept-alive connection at once: the next request on it does not wait for the request timeout', async (t) => {
  const body = field('compiler_version', BUNDLED_VERSION) +
    Array.from({ length: 201 }, (_, i) => fileHead(`files[${i}]`, `F${i}.sol`) + 'contract A {}\r\n').join('') +
    fileHead('files[201]', 'Last.sol') + 'b'.repeat(600 * 1024) + '\r\n' + CLOSE
  const answer = await exchange(requestHead(via(refused.address, 'multi-part'), `content-length: ${Buffer.byteLength(body)}\r\n`), [body], 'GET /health HTTP/1.1\r\nhost: x\r\n\r\n')
  t.equal(answer.status, 413)
  t.same(answer.json, { message: 'reach files limit' })
  t.match(answer.head, /^connection: close$/mi)
  t.ok(answer.closedAfterMs !== undefined && answer.closedAfterMs < CLOSED_WITHIN_MS, `closed ${answer.closedAfterMs} ms after the answer`)
})

t.test('a multipart form without its closing boundary answers 400, as documented, however it was cut', async (t) => {
  const standardJson = JSON.stringify(input)
  const complete = field('compiler_version', BUNDLED_VERSION) + fileHead('files[0]', 'input.json') + standardJson + '\r\n'
  const cuts: Array<[string, string]> = [
    ['cut within a field', field('contract_name', 'VerifiedToken') + `--${BOUNDARY}\r\ncontent-disposition: form-data; name="compiler_version"\r\n\r\n${BUNDLED_VERSION}`],
    ['every part whole, then a boundary that does not close', complete + `--${BOUNDARY}\r\n`],
    ['the last file with no delimiter after it', complete]
  ]
  for (const [what, body] of cuts) {
    const answer = await exchange(requestHead(via(refused.address, 'standard-input'), `content-length: ${Buffer.byteLength(body)}\r\n`), [body])
    t.equal(answer.status, 400, what)
    t.same(answer.json, { message: 'Invalid verification request: the multipart body could not be read (it ends without its closing boundary)' }, what)
  }
  t.equal(await findVerifiedContract(app.db.knex, refused.address), null, 'nothing verified from a form cut short')
})

t.test('sources over VERIFY_MAX_SOURCES_BYTES answer 413 on every route, in its shape', async (t) => {
  const big = source + '\n// ' + 'x'.repeat(MAX_SOURCES_BYTES)
  const form = new FormData()
  form.append('compiler_version', BUNDLED_VERSION)
  form.append('files[0]', new Blob([source]), 'VerifiedToken.sol')
  form.append('files[1]', new Blob(['// ' + 'x'.repeat(MAX_SOURCES_BYTES)]), 'Padding.sol')
  const multiPart = await fetch(url + via(refused.address, 'multi-part'), { method: 'POST', body: form })
  t.equal(multiPart.status, 413, 'REST multi-part')
  t.match(await multiPart.json(), { message: /^The sources are too large to verify: \d+ bytes, over 32768 \(VERIFY_MAX_SOURCES_BYTES\)$/ })
  const flattened = await app.inject({ method: 'POST', url: via(refused.address, 'flattened-code'), payload: { compiler_version: BUNDLED_VERSION, source_code: big } })
  t.equal(flattened.statusCode, 413, 'REST flattened-code (JSON)')
  t.match(flattened.json(), { message: /sources are too large/ })
  const etherscan = await app.inject({
    method: 'POST',
    url: '/api',
    payload: new URLSearchParams({ module: 'contract', action: 'verifysourcecode', contractaddress: refused.address, sourceCode: big, codeformat: 'solidity-single-file', contractname: 'VerifiedToken', compilerversion: BUNDLED_VERSION }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' }
  })
  t.equal(etherscan.statusCode, 413, 'Etherscan-style verifysourcecode')
  t.match(etherscan.json(), { status: '0', message: 'NOTOK', result: /sources are too large/ })
  t.equal(await findVerifiedContract(app.db.knex, refused.address), null)
})

t.test('a form within the caps verifies as before', async (t) => {
  const form = new FormData()
  form.append('compiler_version', BUNDLED_VERSION)
  form.append('files[0]', new Blob([JSON.stringify(input)]), 'input.json')
  const response = await fetch(url + via(accepted.address, 'standard-input'), { method: 'POST', body: form })
  t.same({ status: response.status, json: await response.json() }, { status: 200, json: { message: 'Smart-contract verification started' } })
  t.equal((await findVerifiedContract(app.db.knex, accepted.address))?.name, 'VerifiedToken')
})
