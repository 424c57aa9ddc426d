// Where a backfill's time goes, seen from outside the indexer: its RPC client
// and its database handle are wrapped (this run's instances only), so nothing
// in core/ changes. The store writes each batch in one database transaction,
// one after another, so the time inside transactions is the store stage's.
// The RPC batches are recorded so they can be replayed without the indexer:
// the node's cost of everything the indexer asks for.
import type { Knex } from 'knex'
import pg from 'pg'
import type { RpcClient } from '../../../core/rpc/client.ts'

type Call = { method: string, params: unknown[] }

export type RpcStats = {
  batches: number
  calls: Record<string, number>
  /** Wall time with at least one batch outstanding. */
  busyMs: number
  /** The sum over batches of their own wall time (overlapping). */
  sumMs: number
}

export type InstrumentedRpc = { rpc: RpcClient, stats (): RpcStats, recorded (): string[] }

export function instrumentRpc (rpc: RpcClient): InstrumentedRpc {
  const calls: Record<string, number> = {}
  const recorded: string[] = []
  let batches = 0
  let outstanding = 0
  let busySince = 0
  let busyMs = 0
  let sumMs = 0
  const timed = async <T>(list: Call[], run: () => Promise<T>): Promise<T> => {
    batches++
    for (const { method } of list) calls[method] = (calls[method] ?? 0) + 1
    // The same body the client sends (ids are positions), for the replay.
    recorded.push(JSON.stringify(list.map((c, id) => ({ jsonrpc: '2.0', id, method: c.method, params: c.params }))))
    const startedAt = performance.now()
    if (outstanding++ === 0) busySince = startedAt
    try {
      return await run()
    } finally {
      const now = performance.now()
      sumMs += now - startedAt
      if (--outstanding === 0) busyMs += now - busySince
    }
  }
  // A proxy, not a copy: whatever the client grows stays reachable.
  const wrapped = new Proxy(rpc, {
    get (target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (typeof value !== 'function') return value
      if (property === 'batch' || property === 'batchAnswers') {
        return async (list: Call[], signal?: AbortSignal) => await timed(list, async () => await value.call(target, list, signal))
      }
      return value.bind(target)
    }
  })
  return { rpc: wrapped, stats: () => ({ batches, calls: { ...calls }, busyMs, sumMs }), recorded: () => recorded }
}

export type StoreStats = { transactions: number, ms: number }

/** Times every db.transaction(callback) on this knex instance. */
export function instrumentTransactions (db: Knex): () => StoreStats {
  const original = db.transaction.bind(db) as (...args: unknown[]) => Promise<unknown>
  let transactions = 0
  let ms = 0
  Object.defineProperty(db, 'transaction', {
    configurable: true,
    value: (...args: unknown[]) => {
      // Only the callback form runs to completion inside the call.
      if (typeof args[0] !== 'function') return original(...args)
      const startedAt = performance.now()
      transactions++
      return original(...args).finally(() => { ms += performance.now() - startedAt })
    }
  })
  return () => ({ transactions, ms })
}

/** Sends recorded batch bodies again, `lanes` at a time, and parses each answer as the client does. */
export async function replayBatches (rpc: RpcClient, bodies: string[], lanes: number): Promise<number> {
  let next = 0
  const startedAt = performance.now()
  const lane = async (): Promise<void> => {
    while (next < bodies.length) {
      const { status, body } = await rpc.send(bodies[next++]!)
      const parsed = JSON.parse(body) as unknown
      if (status !== 200 || !Array.isArray(parsed)) throw new Error(`replayed batch answered HTTP ${status}: ${body.slice(0, 200)}`)
    }
  }
  await Promise.all(Array.from({ length: lanes }, lane))
  return performance.now() - startedAt
}

export type SqlStat = { statement: string, count: number, ms: number }

const SQL_KEY_CHARS = 100

/**
 * Times every query any pg client of this process sends, by statement (first
 * characters, whitespace collapsed), until stopped. A diagnostic
 * (BENCH_TRACE_SQL=1): it patches pg.Client.prototype.query for the run.
 */
export function traceSql (): () => SqlStat[] {
  type Query = (this: pg.Client, ...args: unknown[]) => unknown
  const proto = pg.Client.prototype as unknown as { query: Query }
  const original = proto.query
  const stats = new Map<string, { count: number, ms: number }>()
  const record = (text: unknown, startedAt: number): void => {
    const key = String(text).replace(/\s+/g, ' ').trim().slice(0, SQL_KEY_CHARS)
    const stat = stats.get(key) ?? { count: 0, ms: 0 }
    stat.count++
    stat.ms += performance.now() - startedAt
    stats.set(key, stat)
  }
  proto.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string } | undefined
    const text = typeof first === 'string' ? first : first?.text
    if (text === undefined) return original.apply(this, args)
    const startedAt = performance.now()
    const last = args.length - 1
    // knex passes a callback; others await the promise.
    if (typeof args[last] === 'function') {
      const callback = args[last] as (...results: unknown[]) => void
      args[last] = (...results: unknown[]) => {
        record(text, startedAt)
        callback(...results)
      }
      return original.apply(this, args)
    }
    const result = original.apply(this, args)
    if (result instanceof Promise) return result.finally(() => record(text, startedAt))
    return result
  }
  return () => {
    proto.query = original
    return [...stats].map(([statement, s]) => ({ statement, ...s })).sort((a, b) => b.ms - a.ms)
  }
}
