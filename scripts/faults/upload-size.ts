// (h) Two verification forms of 50 files of 10 MB each, streamed at once
// without a Content-Length (what took the gateway from 402 MB to 3.4 GB and
// answered 500): each answers 413 once VERIFY_MAX_BODY_BYTES has arrived,
// without the rest being read, the gateway's RSS stays within a margin of
// what it was, and /health answers after.
import { request } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { readRssBytes } from '../lib/process-memory.ts'
import { createScenarioRecord, expectRecovered, type FaultContext, type ScenarioResult } from './context.ts'

const FILES = 50
const MIB = 1024 * 1024
const FILE_BYTES = 10 * MIB
const FORMS = 2
const BOUNDARY = 'faultsboundary'
/** Two forms at the default cap (20 MiB) with their parsers' buffers, far under the 3 GB they once took. */
const RSS_MARGIN_BYTES = 256 * MIB
const SAMPLE_MS = 50

type Upload = { status: number | string, body: string, writtenBytes: number }

/** One form of FILES files streamed chunked; stops writing once answered. */
async function upload (url: string, address: string): Promise<Upload> {
  return await new Promise((resolve) => {
    let writtenBytes = 0
    let answered = false
    const req = request(`${url}/api/v2/smart-contracts/${address}/verification/via/multi-part`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      agent: false,
      timeout: 120_000
    }, (res) => {
      answered = true
      let text = ''
      res.setEncoding('utf8').on('data', (chunk) => { text += chunk }).on('end', () => resolve({ status: res.statusCode!, body: text, writtenBytes }))
    })
    req.on('timeout', () => req.destroy(new Error('no answer in 120 s')))
    req.on('error', (err: NodeJS.ErrnoException) => { if (!answered) resolve({ status: err.code ?? err.message, body: '', writtenBytes }) })
    const piece = Buffer.alloc(MIB, 'a')
    const pieces = (function * () {
      yield Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="compiler_version"\r\n\r\nv0.8.28+commit.7893614a\r\n`)
      for (let i = 0; i < FILES; i++) {
        yield Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="files[${i}]"; filename="F${i}.sol"\r\n\r\n`)
        for (let sent = 0; sent < FILE_BYTES; sent += MIB) yield piece
        yield Buffer.from('\r\n')
      }
      yield Buffer.from(`--${BOUNDARY}--\r\n`)
    })()
    // next() by hand: leaving a for-of to wait for 'drain' would end the generator.
    const pump = (): void => {
      for (;;) {
        if (answered || req.destroyed) return
        const { done, value } = pieces.next()
        if (done === true) { req.end(); return }
        writtenBytes += value.length
        if (!req.write(value)) { req.once('drain', pump); return }
      }
    }
    pump()
  })
}

export async function uploadSize (context: FaultContext): Promise<ScenarioResult> {
  const record = createScenarioRecord('upload-size', `${FORMS} verification forms of ${FILES} files of 10 MB at once`)
  const { pid, url } = context.gateway
  const before = await readRssBytes(pid)
  let peak = before
  const sampling = { on: true }
  const sampler = (async () => {
    while (sampling.on) {
      peak = Math.max(peak, await readRssBytes(pid).catch(() => peak))
      await sleep(SAMPLE_MS)
    }
  })()
  const uploads = await Promise.all(Array.from({ length: FORMS }, async () => await upload(url, context.sender.address)))
  sampling.on = false
  await sampler
  const health = await context.gateway.health().catch(() => ({ status: 0 }))
  const mib = (bytes: number): string => (bytes / MIB).toFixed(0)
  record.figure(`answers ${uploads.map((u) => u.status).join(', ')} after ${uploads.map((u) => mib(u.writtenBytes)).join(', ')} of ${mib(FILES * FILE_BYTES)} MiB written; gateway RSS ${mib(before)} MiB before, ${mib(peak)} MiB at most; /health ${health.status}`)
  for (const u of uploads) {
    record.expect(u.status === 413 && /Request body is too large/.test(u.body), `a form answered ${u.status} ${u.body.slice(0, 200)}, not 413`)
    record.expect(u.writtenBytes < FILES * FILE_BYTES / 2, `the gateway read on: ${mib(u.writtenBytes)} MiB written before the answer`)
  }
  record.expect(peak - before <= RSS_MARGIN_BYTES, `the gateway's RSS grew ${mib(peak - before)} MiB (${mib(RSS_MARGIN_BYTES)} allowed)`)
  record.expect(health.status === 200, `/health answered ${health.status} after`)
  await expectRecovered(context, record)
  return record.result()
}
