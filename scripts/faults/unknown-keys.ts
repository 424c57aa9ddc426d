// (g) A client whose public budget is spent sends 5,000 requests with random
// well-formed API keys (`tg_...`). A refused key is charged to its address,
// so every one of them must answer 429 without a database lookup (before,
// each reached the database and answered 401); a keyless client from another
// address is still served. The gateway runs with rate limits for this
// scenario (the suite's gateway runs without), and is started again without
// them after it. Lookups are read from PostgreSQL's own counters of scans of
// the api_keys table.
import { request } from 'node:http'
import pg from 'pg'
import { setTimeout as sleep } from 'node:timers/promises'
import { generateApiKey } from '../../core/api-keys/key-format.ts'
import { readEndpoints } from '../../core/endpoints.ts'
import { startGatewayProcess } from '../lib/gateway-process.ts'
import { createScenarioRecord, type FaultContext, type ScenarioResult } from './context.ts'

const RANDOM_KEYS = 5000
const CONCURRENCY = 50
const PUBLIC_PER_MIN = 100
const ATTACKER = '127.0.0.3'
const CLIENT = '127.0.0.4'
/** PostgreSQL's backends report their table counters at most once a second. */
const STATS_SETTLE_MS = 1500
const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })

/** Index and sequential scans of api_keys so far: every key lookup is one. */
async function keyTableScans (databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query('select pg_stat_clear_snapshot()')
    const { rows } = await client.query<{ scans: string }>("select coalesce(seq_scan, 0) + coalesce(idx_scan, 0) as scans from pg_stat_user_tables where relname = 'api_keys'")
    return Number(rows[0]?.scans ?? 0)
  } finally {
    await client.end()
  }
}

async function post (url: string, localAddress: string, key?: string): Promise<number> {
  return await new Promise((resolve) => {
    const req = request(`${url}/rpc`, { method: 'POST', localAddress, agent: false, headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'x-api-key': key }) } }, (res) => {
      res.resume().on('end', () => resolve(res.statusCode!))
    })
    req.on('error', () => resolve(0))
    req.end(BODY)
  })
}

export async function unknownKeys (context: FaultContext): Promise<ScenarioResult> {
  const record = createScenarioRecord('unknown-keys', `${RANDOM_KEYS} random API keys from a spent address`)
  context.gateway.kill('SIGTERM')
  await context.gateway.exited
  const limited = await startGatewayProcess(context.cleanups, { ...context.env, RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_PUBLIC_PER_MIN: String(PUBLIC_PER_MIN) })
  try {
    const databaseUrl = (await readEndpoints(context.dataDir))!.database_url
    let spent = 0
    while (spent < PUBLIC_PER_MIN * 2 && await post(limited.url, ATTACKER) === 200) spent++
    await sleep(STATS_SETTLE_MS)
    const scansBefore = await keyTableScans(databaseUrl)
    const statuses = new Map<number, number>()
    let next = 0
    const started = Date.now()
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < RANDOM_KEYS) {
        next++
        const status = await post(limited.url, ATTACKER, generateApiKey())
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
      }
    }))
    const seconds = (Date.now() - started) / 1000
    await sleep(STATS_SETTLE_MS)
    const lookups = await keyTableScans(databaseUrl) - scansBefore
    const client = await post(limited.url, CLIENT)
    const answers = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${count} x ${status}`).join(', ')
    record.figure(`budget spent after ${spent} requests; ${RANDOM_KEYS} random keys in ${seconds.toFixed(1)} s: ${answers}; api_keys lookups meanwhile: ${lookups}; another address: ${client}`)
    record.expect(spent === PUBLIC_PER_MIN, `the public budget was spent after ${spent} requests, not ${PUBLIC_PER_MIN}`)
    record.expect(statuses.get(429) === RANDOM_KEYS, `every random key answered 429: ${answers}`)
    record.expect(lookups === 0, `${lookups} random keys reached the database`)
    record.expect(client === 200, `a keyless client from another address answered ${client}`)
  } finally {
    limited.kill('SIGTERM')
    await limited.exited
    await context.startGateway()
  }
  return record.result()
}
