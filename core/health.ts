// What /health reports: whether the node and the database answer, and
// whether the chain still moves.
import type { Knex } from 'knex'
import type { RpcClient } from './rpc/client.ts'
import { pingDatabase } from './db/index.ts'
import type { UpstreamReport } from './rpc/upstreams.ts'

const CHECK_TIMEOUT_MS = 2000
/** A chain with steady blocks whose head is older than this many periods (and a minute) has stalled. */
const STALL_PERIODS = 10
const STALL_MIN_S = 60

export type HealthReport = {
  status: 'ok' | 'degraded' | 'unavailable'
  chain_id: number
  geth: { status: 'ok' | 'unavailable', head: number | null, head_age_s: number | null, restarts: number }
  database: { status: 'ok' | 'unavailable' }
  /** `enabled` false: INDEXER_ENABLED=false, a reader that never takes over. */
  indexer: { role: string, enabled: boolean, head: number | null, lag_blocks: number | null }
  /** RPC_UPSTREAMS, when set: each one's state and head at its last check, and the calls it answered for the local node. */
  upstreams?: UpstreamReport[]
}

export type HealthOptions = {
  rpc: RpcClient
  db: Knex
  chainId: number
  cliquePeriod: number
  restarts: () => number
  indexer: () => { role: string, enabled: boolean, indexedHead: number | null }
  upstreams?: () => UpstreamReport[]
}

export async function checkHealth (o: HealthOptions): Promise<HealthReport> {
  const [head, dbOk] = await Promise.all([readHead(o.rpc), pingDatabase(o.db, CHECK_TIMEOUT_MS)])
  const headAgeS = head === undefined ? null : Math.max(0, Math.round(Date.now() / 1000 - head.timestamp))
  const stalled = o.cliquePeriod > 0 && headAgeS !== null && headAgeS > Math.max(STALL_MIN_S, STALL_PERIODS * o.cliquePeriod)
  const indexer = o.indexer()
  const lagBlocks = head === undefined || indexer.indexedHead === null ? null : Math.max(0, head.number - indexer.indexedHead)
  const upstreams = o.upstreams?.()
  // Geth down with an upstream serving JSON-RPC meanwhile (RPC_UPSTREAMS): still serving, so not taken out of rotation.
  const servedElsewhere = head === undefined && upstreams?.some((u) => u.status === 'ok') === true
  const status = (head === undefined && !servedElsewhere) || !dbOk ? 'unavailable' : servedElsewhere || stalled || indexer.role === 'failed' ? 'degraded' : 'ok'
  return {
    status,
    chain_id: o.chainId,
    geth: { status: head === undefined ? 'unavailable' : 'ok', head: head?.number ?? null, head_age_s: headAgeS, restarts: o.restarts() },
    database: { status: dbOk ? 'ok' : 'unavailable' },
    indexer: { role: indexer.role, enabled: indexer.enabled, head: indexer.indexedHead, lag_blocks: lagBlocks },
    ...(upstreams === undefined ? {} : { upstreams })
  }
}

async function readHead (rpc: RpcClient): Promise<{ number: number, timestamp: number } | undefined> {
  try {
    const block = await rpc.call<{ number: string, timestamp: string }>('eth_getBlockByNumber', ['latest', false], AbortSignal.timeout(CHECK_TIMEOUT_MS))
    return { number: Number(block.number), timestamp: Number(block.timestamp) }
  } catch {
    return undefined
  }
}
