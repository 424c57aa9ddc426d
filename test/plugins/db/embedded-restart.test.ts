// Embedded PostgreSQL killed with -9 under a running gateway: while it is down
// REST, GraphQL and the stats routes answer 503 with a JSON body (never 500),
// the supervisor starts it again, and the indexer carries on to the node's
// head. One of the killed server's backends is kept stopped (SIGSTOP) for a
// while: it holds the old shared memory, so PostgreSQL refuses to start
// again until it is gone, which keeps the outage long enough to look at.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import pg from 'pg'
import { Wallet } from 'ethers'
import pino from 'pino'
import { openDatabase } from '../../../core/db/index.ts'
import { readEndpoints } from '../../../core/endpoints.ts'
import { createRpcClient } from '../../../core/rpc/client.ts'
import { createTestChainFiles } from '../../support/chain.ts'
import { sendRound, sign, writeFundedAlloc } from '../../support/blocks.ts'
import { runOps, startGatewayProcess, waitFor } from '../../support/gateway-process.ts'

const chain = await createTestChainFiles(t)
const { wallets, allocFile } = await writeFundedAlloc(t, 1)
const env = { ...chain.env, GENESIS_ALLOC: allocFile, DATABASE_URL: '', GETH_RPC_URL: '' }
// Made and migrated beforehand: on a loaded machine initdb alone can outlast Fastify's 10 s plugin start limit.
await (await openDatabase({ url: undefined, dataDir: chain.dataDir, log: pino({ level: 'warn' }) })).close()
const gateway = await startGatewayProcess(t, env)
const endpoints = (await readEndpoints(chain.dataDir))!
const rpc = createRpcClient({ url: endpoints.geth_rpc_url, timeoutMs: 10_000 })
t.teardown(async () => await rpc.close())

let nonce = 0
const sealTransfers = async (count: number): Promise<number> => {
  let head = 0
  for (let i = 0; i < count; i++) head = await sendRound(rpc, [await sign(wallets[0]!, { to: Wallet.createRandom().address, value: 1n, gasLimit: 21_000n, nonce: nonce++ })])
  return head
}
const indexedTo = async (block: number): Promise<void> => {
  await waitFor(`block ${block} indexed`, async () => {
    const { status, body } = await gateway.health()
    return status === 200 && body.indexer.role === 'writer' && body.indexer.head >= block ? true : undefined
  }, 120_000)
}
const get = async (path: string) => {
  const response = await fetch(gateway.url + path)
  return { status: response.status, type: response.headers.get('content-type') ?? '', body: await response.json() }
}
const graphql = async (query: string) => {
  const response = await fetch(`${gateway.url}/api/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) })
  return { status: response.status, body: await response.json() }
}

t.test('embedded PostgreSQL killed with -9: 503 with JSON meanwhile, started again, indexing resumes', async (t) => {
  await indexedTo(await sealTransfers(3))
  const postmaster = Number((await readFile(join(chain.dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0])
  const client = new pg.Client({ connectionString: endpoints.database_url })
  await client.connect()
  client.on('error', () => {})
  const backend = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid
  process.kill(backend, 'SIGSTOP')
  let backendStopped = true
  t.teardown(() => { if (backendStopped) process.kill(backend, 'SIGKILL') })
  process.kill(postmaster, 'SIGKILL')

  const blocks = await waitFor('REST to answer 503', async () => { const r = await get('/api/v2/blocks'); return r.status === 503 ? r : undefined }, 10_000)
  t.match(blocks.type, /application\/json/)
  t.same(blocks.body, { message: 'The database is unavailable' }, 'REST: 503 with a JSON body')
  const stats = await get('/api/v2/stats')
  t.same({ status: stats.status, body: stats.body }, { status: 503, body: { message: 'The database is unavailable' } }, 'stats: the same')
  const query = await graphql('{ block(number: 1) { hash } }')
  t.equal(query.status, 503, 'GraphQL: 503')
  t.equal(query.body.errors?.[0]?.extensions?.code, 'DATABASE_UNAVAILABLE', 'with the reason in errors[]')
  t.equal(query.body.errors?.[0]?.message, 'The database is unavailable')
  const health = await gateway.health()
  t.equal(health.status, 503, '/health: unavailable')
  t.equal(health.body.database.status, 'unavailable')
  // The node goes on sealing while the index cannot be written.
  const head = await sealTransfers(3)

  process.kill(backend, 'SIGKILL')
  backendStopped = false
  await client.end().catch(() => {})
  await indexedTo(head)
  t.pass(`PostgreSQL is back and the indexer went on to block ${head}`)
  t.ok(gateway.lines.some((l) => l.msg === 'embedded PostgreSQL exited unexpectedly; restarting'), 'the death is logged')
  t.ok(gateway.lines.some((l) => l.msg === 'embedded PostgreSQL is back'), 'and the restart')
  t.equal((await get('/api/v2/blocks')).status, 200, 'REST answers again')
  t.equal((await get('/api/v2/stats')).status, 200, 'stats too')
  t.same((await graphql('{ block(number: 1) { number } }')).body, { data: { block: { number: 1 } } }, 'and GraphQL')

  const verify = await runOps(['verify-index'], { DATA_DIR: chain.dataDir, DATABASE_URL: '', GETH_RPC_URL: '' })
  t.equal(verify.exitCode, 0, verify.stdout + verify.stderr)
  t.match(verify.stdout, `verified blocks 0..${head} (${head + 1} blocks): no mismatches`)
})
