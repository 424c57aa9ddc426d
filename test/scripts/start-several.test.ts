// The several-instance topology of docs/operations.md, as processes
// (scripts/start.ts): one gateway supervises Geth and serves the API only
// (INDEXER_ENABLED=false), two more use its node (GETH_RPC_URL, GETH_WS_URL);
// all three on one PostgreSQL and the machine's Redis, behind a trusted
// proxy (each request says its client in X-Forwarded-For). One indexes, all
// serve; budgets are shared; GraphQL and WebSocket JSON-RPC subscribers on
// every instance hear every block; the indexing instance killed with -9 is
// replaced within 5 s; a key revoked is refused by all within 1 s.
import t from 'tap'
import { randomInt } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { JsonRpcProvider, Wallet } from 'ethers'
import knex from 'knex'
import { CHAIN_ID } from '../../core/config.ts'
import { readEndpoints } from '../../core/endpoints.ts'
import { createApiKey, revokeApiKeys } from '../../core/api-keys/store.ts'
import { createTestChainFiles, waitForReceipt } from '../support/chain.ts'
import { createTestDatabase } from '../support/database.ts'
import { startGatewayProcess, waitFor, type GatewayProcess } from '../support/gateway-process.ts'
import { openSubscriptionSocket, type SubscriptionSocket } from '../support/graphql.ts'
import { MACHINE_REDIS_URL, redisAnswers } from '../support/redis.ts'
import { connectWsRpc, wsUrlOf, type WsRpcClient } from '../support/ws-rpc.ts'

const PUBLIC = 6
const TAKEOVER_MS = 5000
const REVOKED_WITHIN_MS = 1000
const HEARD_WITHIN_MS = 5000
/** Three gateways start on a loaded machine: more than the default minute each may be needed. */
const SERVING_TIMEOUT_MS = 600_000

// Redis is on every machine that runs the suite: its absence is a failure, not a skip.
if (!await redisAnswers(MACHINE_REDIS_URL)) throw new Error(`no Redis answers at ${MACHINE_REDIS_URL}: start the machine's Redis`)

const chain = await createTestChainFiles(t)
const databaseUrl = await createTestDatabase(t)
const shared = {
  ...chain.env,
  DATABASE_URL: databaseUrl,
  REDIS_URL: MACHINE_REDIS_URL,
  RATE_LIMIT_ENABLED: 'true',
  RATE_LIMIT_PUBLIC_PER_MIN: String(PUBLIC),
  // Key counters in the machine's Redis are named by key id, which other test databases reuse.
  RATE_LIMIT_PREMIUM_PER_MIN: '1000000',
  TRUST_PROXY: '127.0.0.1'
}

// Counters in the machine's Redis outlive the test by a minute: client addresses of this run only.
const run = randomInt(0, 250)
let nextClient = 1
const newClient = (): string => `10.${run}.${Math.floor(nextClient / 250)}.${(nextClient++ % 250) + 1}`
const asClient = (client = newClient()): Record<string, string> => ({ 'x-forwarded-for': client })

async function startApiInstance (env: Record<string, string>): Promise<GatewayProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), 'tg-instance-'))
  t.teardown(async () => await rm(dataDir, { recursive: true, force: true }))
  return await startGatewayProcess(t, { ...shared, ...env, DATA_DIR: dataDir }, { servingTimeoutMs: SERVING_TIMEOUT_MS })
}

const role = async (gateway: GatewayProcess): Promise<string> => (await gateway.health()).body.indexer.role
async function untilRole (gateway: GatewayProcess, wanted: string, timeoutMs?: number): Promise<void> {
  await waitFor(`pid ${gateway.pid} to be ${wanted}`, async () => await role(gateway) === wanted ? true : undefined, timeoutMs)
}

// The Geth supervisor, API only: it never indexes, so killing the writer leaves the node up.
const supervisor = await startGatewayProcess(t, { ...shared, INDEXER_ENABLED: 'false' }, { servingTimeoutMs: SERVING_TIMEOUT_MS })
const endpoints = (await readEndpoints(chain.dataDir))!
const nodeEnv = { GETH_RPC_URL: endpoints.geth_rpc_url, GETH_WS_URL: endpoints.geth_ws_url ?? '' }
const writer = await startApiInstance(nodeEnv)
await untilRole(writer, 'writer')
const standby = await startApiInstance(nodeEnv)
await untilRole(standby, 'reader')
const instances = [supervisor, writer, standby]

const provider = new JsonRpcProvider(endpoints.geth_rpc_url, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1 })
t.teardown(() => provider.destroy())
const sender = new Wallet(chain.account.privateKey, provider)
let nonce = 0
async function sealBlock (): Promise<number> {
  const { hash } = await sender.sendTransaction({ to: Wallet.createRandom().address, value: 1n, nonce: nonce++ })
  return (await waitForReceipt(provider, hash)).blockNumber
}

async function get (gateway: GatewayProcess, path: string, headers: Record<string, string> = asClient()): Promise<Response> {
  return await fetch(`${gateway.url}${path}`, { headers })
}

t.test('one gateway supervises Geth, one indexes, all three serve', async (t) => {
  t.equal(endpoints.geth_ws_url?.startsWith('ws://127.0.0.1:'), true, 'the supervisor publishes its node\'s WebSocket in endpoints.json')
  t.match((await supervisor.health()).body.indexer, { role: 'reader', enabled: false })
  t.equal(await role(writer), 'writer')
  t.equal(await role(standby), 'reader')
  for (const gateway of [writer, standby]) {
    t.ok(gateway.lines.some((l) => l.msg === 'using the node at GETH_RPC_URL'), `pid ${gateway.pid} supervises no Geth`)
  }
  const block = await sealBlock()
  for (const gateway of instances) {
    await waitFor(`block ${block} on pid ${gateway.pid}`, async () => (await gateway.health()).body.indexer.head >= block ? true : undefined)
    const response = await get(gateway, `/api/v2/blocks/${block}`)
    t.equal(response.status, 200, `pid ${gateway.pid} serves the indexed block`)
    const rpc = await fetch(`${gateway.url}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json', ...asClient() }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }) })
    t.ok(Number((await rpc.json()).result) >= block, `pid ${gateway.pid} answers JSON-RPC`)
  }
})

t.test('a client spends one budget across the instances', async (t) => {
  const client = asClient()
  for (let i = 0; i < PUBLIC; i++) {
    const response = await get(instances[i % instances.length]!, '/api/v2/main-page/indexing-status', client)
    t.equal(response.status, 200)
    t.equal(response.headers.get('x-ratelimit-remaining'), String(PUBLIC - i - 1), 'each instance sees what the others counted')
  }
  for (const gateway of instances) t.equal((await get(gateway, '/api/v2/main-page/indexing-status', client)).status, 429, `refused by pid ${gateway.pid} too`)
})

type Subscribers = { graphql: SubscriptionSocket[], rpc: WsRpcClient[], graphqlHeard: number[][] }

async function subscribeEverywhere (gateways: GatewayProcess[]): Promise<Subscribers> {
  const subscribers: Subscribers = { graphql: [], rpc: [], graphqlHeard: [] }
  for (const gateway of gateways) {
    const socket = await openSubscriptionSocket(wsUrlOf(gateway.url, '/api/v2/graphql'), 'graphql-transport-ws', { headers: asClient() })
    t.teardown(() => socket.socket.terminate())
    socket.send({ type: 'connection_init' })
    if ((await socket.next(5000)).type !== 'connection_ack') throw new Error('no connection_ack')
    socket.send({ id: '1', type: 'subscribe', payload: { query: 'subscription { newBlock { number } }' } })
    const heard: number[] = []
    socket.socket.on('message', (data) => {
      const message = JSON.parse(String(data))
      if (message.type === 'next') heard.push(message.payload.data.newBlock.number)
    })
    subscribers.graphql.push(socket)
    subscribers.graphqlHeard.push(heard)
    const rpc = await connectWsRpc(t, wsUrlOf(gateway.url), { headers: asClient() })
    const answer = await rpc.call('eth_subscribe', ['newHeads'])
    if (typeof answer.result !== 'string') throw new Error(`eth_subscribe on pid ${gateway.pid}: ${JSON.stringify(answer)}`)
    subscribers.rpc.push(rpc)
  }
  return subscribers
}

/** Every subscriber heard every block of `blocks`, over GraphQL and over JSON-RPC. */
async function expectHeard (t: { pass (message: string): void }, gateways: GatewayProcess[], s: Subscribers, blocks: number[]): Promise<void> {
  for (const [i, gateway] of gateways.entries()) {
    await waitFor(`GraphQL subscribers on pid ${gateway.pid} to hear blocks ${blocks.join(', ')}`, async () =>
      blocks.every((b) => s.graphqlHeard[i]!.includes(b)) ? true : undefined, HEARD_WITHIN_MS)
    await s.rpc[i]!.until(() => blocks.every((b) => s.rpc[i]!.notifications.some((n) => Number(n.result.number) === b)), HEARD_WITHIN_MS)
    t.pass(`pid ${gateway.pid}'s GraphQL and JSON-RPC subscribers heard blocks ${blocks.join(', ')}`)
  }
}

let subscribers: Subscribers

t.test('GraphQL and WebSocket JSON-RPC subscribers on every instance hear every block', async (t) => {
  subscribers = await subscribeEverywhere(instances)
  const blocks = [await sealBlock(), await sealBlock(), await sealBlock()]
  await expectHeard(t, instances, subscribers, blocks)
})

t.test('a key revoked is refused by every instance within 1 s', async (t) => {
  const db = knex({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } })
  t.teardown(async () => await db.destroy())
  const { key, listing } = await createApiKey(db, { label: 'revoked everywhere', tier: 'premium' })
  const send = async (gateway: GatewayProcess): Promise<number> => (await get(gateway, '/api/v2/main-page/indexing-status', { ...asClient(), 'x-api-key': key })).status
  for (const gateway of instances) t.equal(await send(gateway), 200, `pid ${gateway.pid} serves the key (and caches it)`)
  await revokeApiKeys(db, listing.id)
  const revokedAt = Date.now()
  const refusedAfterMs = await Promise.all(instances.map(async (gateway) => {
    while (await send(gateway) !== 401 && Date.now() - revokedAt < 2 * REVOKED_WITHIN_MS) await sleep(20)
    return Date.now() - revokedAt
  }))
  for (const [i, ms] of refusedAfterMs.entries()) t.ok(ms < REVOKED_WITHIN_MS, `pid ${instances[i]!.pid} refused it ${ms} ms after the revocation`)
})

t.test('the indexing instance killed with -9: the standby indexes within 5 s, every subscriber left hears on', async (t) => {
  writer.kill('SIGKILL')
  await writer.exited
  const killedAt = Date.now()
  await untilRole(standby, 'writer', 2 * TAKEOVER_MS)
  const takeoverMs = Date.now() - killedAt
  t.ok(takeoverMs <= TAKEOVER_MS, `the standby holds the indexer lock ${takeoverMs} ms after the kill`)
  t.equal(await role(supervisor), 'reader', 'the API-only instance never takes it')
  const block = await sealBlock()
  await waitFor(`the new writer to index block ${block}`, async () => (await standby.health()).body.indexer.head >= block ? true : undefined)
  const left = [supervisor, standby]
  await expectHeard(t, left, { graphql: [subscribers.graphql[0]!, subscribers.graphql[2]!], rpc: [subscribers.rpc[0]!, subscribers.rpc[2]!], graphqlHeard: [subscribers.graphqlHeard[0]!, subscribers.graphqlHeard[2]!] }, [block])
  t.comment(`takeover: ${takeoverMs} ms`)
})
