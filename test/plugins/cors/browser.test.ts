// CORS as a real browser enforces it: headless Chromium (Debian's `chromium`
// package, driven by playwright-core) loads a page from another origin, and
// that page calls the gateway the way Blockscout's front end and a wallet do:
// GET /api/v2/stats with the updated-gas-oracle header (a preflighted request)
// and a JSON-RPC POST with a JSON body (preflighted too). Both must succeed.
// A call from the same page to a server that sends no CORS headers must fail,
// so the page is known to be held to CORS at all. Nothing is installed here:
// without /usr/bin/chromium the test is skipped (.ci/run installs it).
import t from 'tap'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from '../../helper.ts'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync']
const PAGE = '<!doctype html><title>another origin</title><p>explorer front end</p>'
const missing = existsSync(CHROMIUM) ? false : `${CHROMIUM} is absent (Debian: apt-get install -y chromium): the browser CORS test is skipped`

/** A server of its own origin that serves the page and, for the control, plain JSON without CORS headers. */
async function startPageServer (t: { teardown (fn: () => unknown): void }): Promise<{ port: number }> {
  const server: Server = createServer((request, response) => {
    if (request.url === '/plain.json') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"plain":true}')
      return
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(async () => await new Promise<void>((resolve) => server.close(() => resolve())))
  return { port: (server.address() as { port: number }).port }
}

type CallResult = { ok: boolean, status?: number, body?: unknown, error?: string }

t.test('a page of another origin in Chromium reads /api/v2/stats with updated-gas-oracle and calls JSON-RPC', { skip: missing }, async (t) => {
  const { chromium } = await import('playwright-core')
  const { url: gateway } = await build(t)
  const { port } = await startPageServer(t)
  // localhost and 127.0.0.1 are different origins: the page's calls to the gateway are cross-origin.
  const pageUrl = `http://localhost:${port}/`
  const userDataDir = mkdtempSync(join(tmpdir(), 'tg-chromium-'))
  t.teardown(() => rmSync(userDataDir, { recursive: true, force: true }))
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: ARGS })
  t.teardown(async () => await context.close())
  const page = await context.newPage()
  await page.goto(pageUrl)

  const call = async (target: string, init: { method?: string, headers?: Record<string, string>, body?: string }): Promise<CallResult> =>
    await page.evaluate(async ({ target, init }) => {
      try {
        const response = await fetch(target, init)
        return { ok: true, status: response.status, body: await response.json() }
      } catch (err) {
        return { ok: false, error: String(err) }
      }
    }, { target, init })

  t.equal(await page.evaluate(() => location.origin), `http://localhost:${port}`, 'the page runs on its own origin')

  const stats = await call(`${gateway}/api/v2/stats`, { headers: { 'updated-gas-oracle': 'true' } })
  t.equal(stats.ok, true, `fetch /api/v2/stats: ${stats.error ?? 'read'}`)
  t.equal(stats.status, 200)
  t.ok(stats.body !== null && typeof stats.body === 'object' && 'total_blocks' in stats.body, 'the stats body')

  const rpc = await call(`${gateway}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })
  })
  t.equal(rpc.ok, true, `JSON-RPC POST: ${rpc.error ?? 'read'}`)
  t.same(rpc.body, { jsonrpc: '2.0', id: 1, result: '0xc1cbc' })

  // The control: the same kind of call to an origin that allows none is blocked by the browser.
  const blocked = await call(`http://127.0.0.1:${port}/plain.json`, { headers: { 'updated-gas-oracle': 'true' } })
  t.equal(blocked.ok, false, 'a server without CORS headers is refused to the page')
})
