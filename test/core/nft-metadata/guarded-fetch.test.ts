// The HTTP reads token URIs cause: private addresses refused (by literal and
// by name), schemes other than HTTP(S) refused, answers cut off by size and
// time. Against a real HTTP server on this machine.
import t from 'tap'
import { createServer } from 'node:http'
import { createGuardedFetch, isPrivateAddress } from '../../../core/nft-metadata/guarded-fetch.ts'

let requests = 0
const server = createServer((request, response) => {
  requests++
  if (request.url === '/slow') return // never answers
  if (request.url === '/chunked') {
    // No content-length: the size is known only while reading.
    response.write('x'.repeat(600))
    response.end('x'.repeat(600))
    return
  }
  response.end('{"ok":true}')
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
t.teardown(() => { server.closeAllConnections(); server.close() })
const port = (server.address() as { port: number }).port

t.test('private, loopback, link-local and reserved addresses are told apart from public ones', async (t) => {
  for (const address of ['127.0.0.1', '10.1.2.3', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:8.8.8.8', '64:ff9b::7f00:1', '2002:7f00:1::1']) {
    t.ok(isPrivateAddress(address), `${address} is refused`)
  }
  for (const address of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700::1111', '2a00:1450:4001::200e']) {
    t.notOk(isPrivateAddress(address), `${address} is public`)
  }
})

t.test('refused by default: this machine by address and by name, and other schemes', async (t) => {
  const http = createGuardedFetch({ allowPrivate: false, timeoutMs: 2000, maxBytes: 1000 })
  t.teardown(async () => await http.close())
  const before = requests
  await t.rejects(http.getText(`http://127.0.0.1:${port}/`), /private/)
  await t.rejects(http.getText(`http://localhost:${port}/`), /private/)
  await t.rejects(http.getText(`http://[::ffff:127.0.0.1]:${port}/`), /private/)
  await t.rejects(http.getText(`http://[::ffff:7f00:1]:${port}/`), /private/)
  await t.rejects(http.getText(`http://2130706433:${port}/`), /private/, '127.0.0.1 as one number')
  await t.rejects(http.getText('file:///etc/passwd'), /not fetched/)
  await t.rejects(http.getText('ftp://example.org/x'), /not fetched/)
  t.equal(requests, before, 'no request reached the server')
})

t.test('allowed, an answer is read; a long or slow one is cut off', async (t) => {
  const http = createGuardedFetch({ allowPrivate: true, timeoutMs: 500, maxBytes: 1000 })
  t.teardown(async () => await http.close())
  t.equal(await http.getText(`http://127.0.0.1:${port}/`), '{"ok":true}')
  await t.rejects(http.getText(`http://127.0.0.1:${port}/chunked`), 'past maxBytes')
  const started = Date.now()
  await t.rejects(http.getText(`http://127.0.0.1:${port}/slow`), 'past the time limit')
  t.ok(Date.now() - started < 2000, 'given up after about the limit')
})
