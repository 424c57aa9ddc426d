// Requests and rejections per key and UTC day, summed in memory and added to
// api_key_usage in one statement every few seconds: a busy key costs the
// database one upsert per flush, not one write per request.
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'

export const USAGE_FLUSH_INTERVAL_MS = 5_000
const DAY_MS = 24 * 3600 * 1000

export type UsageRecorder = {
  record (keyId: string, requests: number, rejected: boolean): void
  /** Writes what is summed so far; the plugin calls it on close. */
  flush (): Promise<void>
  close (): Promise<void>
}

type Sums = { requests: number, rejections: number, lastUsedMs: number }

export function createUsageRecorder ({ db, log, intervalMs = USAGE_FLUSH_INTERVAL_MS }: { db: Knex, log: Logger, intervalMs?: number }): UsageRecorder {
  // Per UTC day, then key id, so a flush after midnight still books each request on its own day.
  let pending = new Map<string, Map<string, Sums>>()
  let flushing = Promise.resolve()
  // flush() logs its own failures and never rejects.
  const timer = setInterval(() => { flush().catch(() => {}) }, intervalMs)
  timer.unref()

  // The UTC day's sums, looked up again only when the day ends (or after a flush): record() runs on every keyed request.
  let today: Map<string, Sums> | undefined
  let dayEndsAtMs = 0
  function record (keyId: string, requests: number, rejected: boolean): void {
    const now = Date.now()
    if (today === undefined || now >= dayEndsAtMs) {
      const day = new Date(now).toISOString().slice(0, 10)
      dayEndsAtMs = Date.parse(day) + DAY_MS
      today = pending.get(day)
      if (today === undefined) pending.set(day, today = new Map())
    }
    const sums = today.get(keyId)
    if (sums === undefined) today.set(keyId, { requests, rejections: rejected ? requests : 0, lastUsedMs: now })
    else {
      sums.requests += requests
      if (rejected) sums.rejections += requests
      sums.lastUsedMs = now
    }
  }

  async function write (batch: Map<string, Map<string, Sums>>): Promise<void> {
    const rows = [...batch].flatMap(([day, keys]) => [...keys].map(([keyId, sums]) => ({ keyId, day, ...sums })))
    await db.transaction(async (trx) => {
      await trx.raw(`insert into api_key_usage (key_id, day, requests, rejections)
        select * from unnest(?::bigint[], ?::date[], ?::bigint[], ?::bigint[])
        on conflict (key_id, day) do update set requests = api_key_usage.requests + excluded.requests,
          rejections = api_key_usage.rejections + excluded.rejections`,
      [rows.map((r) => r.keyId), rows.map((r) => r.day), rows.map((r) => r.requests), rows.map((r) => r.rejections)])
      await trx.raw(`update api_keys k set last_used_at = greatest(k.last_used_at, to_timestamp(u.ms / 1000.0))
        from unnest(?::bigint[], ?::float8[]) as u(id, ms) where k.id = u.id`,
      [rows.map((r) => r.keyId), rows.map((r) => r.lastUsedMs)])
    })
  }

  async function flush (): Promise<void> {
    flushing = flushing.then(async () => {
      if (pending.size === 0) return
      const batch = pending
      pending = new Map()
      today = undefined
      // A key deleted meanwhile fails the foreign key: its sums are dropped with the batch, and said so.
      await write(batch).catch((err: Error) => log.warn({ err: err.message, keys: [...batch.values()].reduce((n, keys) => n + keys.size, 0) }, 'cannot record API key usage; these sums are lost'))
    })
    await flushing
  }

  return {
    record,
    flush,
    async close () {
      clearInterval(timer)
      await flush()
    }
  }
}
