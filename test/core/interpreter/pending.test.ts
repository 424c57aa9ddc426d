// isPendingTransaction() when the node cannot say: the summary route then answers as the index does (404), never 500.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRpcClient } from '../../../core/rpc/client.ts'
import { isPendingTransaction } from '../../../core/interpreter/pending.ts'

const HASH = '0x' + '11'.repeat(32)

t.test('a node that answers an error (Geth while it indexes its transactions) or does not answer: not pending', async (t) => {
  // A JSON-RPC endpoint answering as Geth 1.13 does before its transaction index is complete.
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => { body += chunk })
    request.on('end', () => {
      const { id } = JSON.parse(body) as { id: number }
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: 'transaction indexing is in progress' } }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { server.close() })
  const indexing = createRpcClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, timeoutMs: 2000 })
  t.teardown(indexing.close)
  t.equal(await isPendingTransaction(indexing, HASH), false, 'an error answer')

  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const port = (closed.address() as AddressInfo).port
  await new Promise<void>((resolve) => closed.close(() => resolve()))
  const down = createRpcClient({ url: `http://127.0.0.1:${port}`, timeoutMs: 2000 })
  t.teardown(down.close)
  t.equal(await isPendingTransaction(down, HASH), false, 'no answer')
})
