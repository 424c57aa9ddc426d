// A node that cannot serve this chain stops the start with a coded error the
// operator can act on, rather than a gateway serving another chain or waiting
// on a Geth that is gone: GW_ERR_CHAIN_MISMATCH for GETH_RPC_URL at another
// chain, GW_ERR_GETH_START_FAILED for a Geth that exits before it answers.
import t from 'tap'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { chmod, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import pino from 'pino'
import { loadConfig } from '../../core/config.ts'
import { createGethNode } from '../../geth/node.ts'
import { createTestChainFiles } from '../support/chain.ts'

const log = pino({ level: 'silent' })
const chain = await createTestChainFiles(t)

t.test('GETH_RPC_URL at a node of another chain: GW_ERR_CHAIN_MISMATCH names the URL and the chain ID it serves', async (t) => {
  // A node that answers every call, as mainnet's would: chain ID 1.
  const server = createServer((request, response) => {
    let text = ''
    request.on('data', (chunk: Buffer) => { text += chunk.toString() })
    request.on('end', () => {
      const { id, method } = JSON.parse(text) as { id: number, method: string }
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify({ jsonrpc: '2.0', id, result: method === 'eth_chainId' ? '0x1' : '0x10' }))
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { server.close() })
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  const node = await createGethNode({ config: loadConfig({ ...process.env, ...chain.env, GETH_RPC_URL: url }), log })
  t.teardown(async () => await node.stop())
  const failure = await node.start().then(() => undefined, (err: unknown) => err as Error & { code?: string })
  t.equal(failure?.code, 'GW_ERR_CHAIN_MISMATCH')
  t.match(failure?.message, url)
  t.match(failure?.message, /chain ID 1, not 793788/)
})

t.test('a Geth that exits before its RPC answers: GW_ERR_GETH_START_FAILED with its reason and its last output', async (t) => {
  // Passes the version check and `geth init`, then fails as a Geth with a bad flag or a locked data directory does.
  const bin = join(chain.dataDir, 'failing-geth')
  await writeFile(bin, [
    '#!/bin/sh',
    'case "$1" in',
    '  version) echo "Geth"; echo "Version: 1.13.15-stable"; exit 0 ;;',
    '  init) exit 0 ;;',
    'esac',
    'echo "Fatal: the data directory is locked by another process" >&2',
    'exit 3',
    ''
  ].join('\n'))
  await chmod(bin, 0o755)
  const node = await createGethNode({ config: loadConfig({ ...process.env, ...chain.env, GETH_BIN: bin }), log })
  t.teardown(async () => await node.stop())
  const startedMs = Date.now()
  const failure = await node.start().then(() => undefined, (err: unknown) => err as Error & { code?: string })
  t.equal(failure?.code, 'GW_ERR_GETH_START_FAILED')
  t.match(failure?.message, /geth exited \(code 3\) before its RPC answered/)
  t.match(failure?.message, /the data directory is locked/, 'the last lines Geth wrote come with it')
  // It gives up when Geth exits, not at the end of the readiness timeout.
  t.ok(Date.now() - startedMs < 15_000, `gave up after ${Date.now() - startedMs} ms`)
})
