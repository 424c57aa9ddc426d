// (b) Embedded PostgreSQL down for a while under a running gateway: its
// postmaster is killed with -9 while one of its backends is kept stopped
// (SIGSTOP), which holds the old shared memory so that PostgreSQL cannot start
// again until the backend goes (test/plugins/db/embedded-restart.test.ts does
// the same). Meanwhile REST, GraphQL, the Etherscan-style /api and the Stats
// API answer 503 each in its own shape, JSON-RPC keeps working, with an API key
// known before (a key never seen answers -32002 for its id), and the node keeps
// sealing; then the gateway's supervisor starts PostgreSQL again and the
// indexer catches up with nothing lost.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import knex from 'knex'
import { createApiKey } from '../../core/api-keys/store.ts'
import { generateApiKey } from '../../core/api-keys/key-format.ts'
import { readEndpoints } from '../../core/endpoints.ts'
import { waitFor } from '../lib/gateway-process.ts'
import { createScenarioRecord, expectRecovered, type FaultContext, type ScenarioResult } from './context.ts'
import { callRpc, startTransfers } from './traffic.ts'

const PROBE_EVERY_MS = 250
const MS_PER_S = 1000
/**
 * knex's pool and the prepared statements' pool (10 each), the indexer lock,
 * four LISTEN connections (commits, API keys, address names, verifications)
 * and this scenario's own: more after the restart means something opened
 * connections it did not close.
 */
const MAX_CONNECTIONS_AFTER = 30

type Probe = { rest: number, graphql: number, jsonRpc: number, keyed: number, unseenKey: number, etherscan: number, stats: number, problems: string[] }
/** An address with nothing indexed: /api must still ask the database. */
const SOME_ADDRESS = '0x0000000000000000000000000000000000000001'
/** Stats charts from this day: each probe asks another range, so that no kept answer serves it. */
const STATS_FROM_MS = Date.UTC(2000, 0, 1)
const DAY_MS = 86_400_000

export async function postgresDown (context: FaultContext, downS: number): Promise<ScenarioResult> {
  const record = createScenarioRecord('postgres-down', `embedded PostgreSQL down ${downS} s`)
  if (context.env.DATABASE_URL !== '') return record.result('needs embedded PostgreSQL (the gateway runs on DATABASE_URL)')
  const endpoints = await readEndpoints(context.dataDir)
  if (endpoints === undefined) throw new Error('no endpoints.json: is the gateway running?')
  await context.catchUp()
  const postmaster = Number((await readFile(join(context.dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0])
  const client = new pg.Client({ connectionString: endpoints.database_url })
  await client.connect()
  client.on('error', () => {})
  const backend = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid
  const key = await createKey(endpoints.database_url)
  // Used once, so the instance knows it before the database goes.
  const warm = await callRpc(`${context.gateway.url}/rpc/${key}`, 'eth_blockNumber', [], '')
  if (typeof warm.body?.result !== 'string') throw new Error(`JSON-RPC with a new key before the outage: HTTP ${warm.status} ${JSON.stringify(warm.body)}`)
  const transfers = startTransfers(() => context.gateway.url, context.sender)
  const probe: Probe = { rest: 0, graphql: 0, jsonRpc: 0, keyed: 0, unseenKey: 0, etherscan: 0, stats: 0, problems: [] }
  let backendStopped = false
  try {
    process.kill(backend, 'SIGSTOP')
    backendStopped = true
    process.kill(postmaster, 'SIGKILL')
    await waitFor('REST to answer 503', async () => (await fetch(`${context.gateway.url}/api/v2/blocks`)).status === 503 ? true : undefined, context.timeoutMs)
    const until = Date.now() + downS * MS_PER_S
    while (Date.now() < until) {
      await probeWhileDown(context.gateway.url, key, probe)
      await sleep(PROBE_EVERY_MS)
    }
  } finally {
    if (backendStopped) process.kill(backend, 'SIGKILL')
    await client.end().catch(() => {})
  }
  const backAt = Date.now()
  try {
    await waitFor('REST to answer again', async () => (await fetch(`${context.gateway.url}/api/v2/blocks`)).status === 200 ? true : undefined, context.timeoutMs)
  } finally {
    const { sent } = await transfers.stop()
    record.figure(`${probe.rest} REST, ${probe.graphql} GraphQL, ${probe.etherscan} /api and ${probe.stats} /stats answers 503 in their shapes, ${probe.jsonRpc} JSON-RPC results (${probe.keyed} with a known key, ${probe.unseenKey} -32002 for a key never seen) while down; ${sent} transfers sent; REST back ${((Date.now() - backAt) / MS_PER_S).toFixed(1)} s after the stopped backend went`)
  }
  for (const problem of probe.problems.slice(0, 3)) record.expect(false, problem)
  record.expect([probe.rest, probe.graphql, probe.jsonRpc, probe.keyed, probe.unseenKey, probe.etherscan, probe.stats].every((n) => n > 0), 'not every interface was probed while PostgreSQL was down')
  record.expect(context.gateway.lines.some((l) => l.msg === 'embedded PostgreSQL is back'), 'the supervisor logged no restart')
  await expectRecovered(context, record)
  const connections = await countClientConnections((await readEndpoints(context.dataDir))!.database_url)
  record.figure(`${connections} PostgreSQL connections after recovery`)
  record.expect(connections <= MAX_CONNECTIONS_AFTER, `${connections} PostgreSQL connections after recovery (more than ${MAX_CONNECTIONS_AFTER}: a connection leak or a retry storm)`)
  return record.result()
}

async function countClientConnections (databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ n: string }>("select count(*) as n from pg_stat_activity where backend_type = 'client backend'")
    return Number(rows[0]!.n)
  } finally {
    await client.end()
  }
}

/** An API key made in the gateway's database, as `ops keys create` makes one. */
async function createKey (databaseUrl: string): Promise<string> {
  const db = knex({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } })
  try {
    return (await createApiKey(db, { label: 'faults postgres-down', tier: 'premium' })).key
  } finally {
    await db.destroy()
  }
}

/** One round of REST, GraphQL, JSON-RPC (public, with a known key, with a key never seen), /api and /stats requests; what is not as documented goes to `problems`. */
async function probeWhileDown (url: string, key: string, probe: Probe): Promise<void> {
  const rest = await fetch(`${url}/api/v2/transactions`)
  const restBody = await rest.json().catch(() => undefined)
  if (rest.status === 503 && typeof restBody?.message === 'string') probe.rest++
  else probe.problems.push(`REST while down: HTTP ${rest.status} ${JSON.stringify(restBody)}`)
  const graphql = await fetch(`${url}/api/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ block(number: 1) { hash } }' }) })
  const graphqlBody = await graphql.json().catch(() => undefined)
  if (graphql.status === 503 && graphqlBody?.errors?.[0]?.extensions?.code === 'DATABASE_UNAVAILABLE') probe.graphql++
  else probe.problems.push(`GraphQL while down: HTTP ${graphql.status} ${JSON.stringify(graphqlBody)}`)
  const rpc = await callRpc(url, 'eth_getBlockByNumber', ['latest', false])
  if (typeof rpc.body?.result?.hash === 'string') probe.jsonRpc++
  else probe.problems.push(`JSON-RPC while down: HTTP ${rpc.status} ${JSON.stringify(rpc.body)}`)
  const keyed = await callRpc(`${url}/rpc/${key}`, 'eth_blockNumber', [], '')
  if (typeof keyed.body?.result === 'string') probe.keyed++
  else probe.problems.push(`JSON-RPC with a known key while down: HTTP ${keyed.status} ${JSON.stringify(keyed.body)}`)
  const unseen = await callRpc(`${url}/rpc/${generateApiKey()}`, 'eth_blockNumber', [], '')
  if (unseen.status === 503 && unseen.body?.id === 1 && unseen.body?.error?.code === -32002) probe.unseenKey++
  else probe.problems.push(`JSON-RPC with a key never seen while down: HTTP ${unseen.status} ${JSON.stringify(unseen.body)}`)
  const etherscan = await fetch(`${url}/api?module=account&action=txlist&address=${SOME_ADDRESS}`)
  const etherscanBody = await etherscan.json().catch(() => undefined)
  if (etherscan.status === 503 && etherscanBody?.status === '0' && etherscanBody?.message === 'NOTOK') probe.etherscan++
  else probe.problems.push(`/api while down: HTTP ${etherscan.status} ${JSON.stringify(etherscanBody)}`)
  const to = new Date(STATS_FROM_MS + (probe.stats + probe.problems.length + 1) * DAY_MS).toISOString().slice(0, 10)
  const stats = await fetch(`${url}/stats/api/v1/lines/newTxns?from=2000-01-01&to=${to}`)
  const statsBody = await stats.json().catch(() => undefined)
  if (stats.status === 503 && statsBody?.code === 14) probe.stats++
  else probe.problems.push(`/stats while down: HTTP ${stats.status} ${JSON.stringify(statsBody)}`)
}
