// A client's budget taken from Redis in slices (leases) and spent in this
// process, so that most requests cost no round trip. Each instance adds a
// slice to the client's shared count in Redis and admits requests against
// it locally; when it runs low another slice is reserved in the background.
// The instances together never admit more than the limit in a window, since
// every admitted request was reserved in Redis first. The price is budget
// reserved and not spent: a slice left unspent when the window ends is lost
// to the other instances, at most two slices (LEASE_SHARE of the limit each)
// per instance and window. Limits below 2 / LEASE_SHARE (200 a minute, the
// public tier's 100 among them) get slices of one request (a batch: its
// cost): counted in Redis request by request, exactly.
import type { CounterState } from './memory-counters.ts'

/** A slice is this share of the limit... */
export const LEASE_SHARE = 0.01
/** ...but no more than this many requests, so that little is lost when a client leaves an instance... */
export const MAX_LEASE = 100
/**
 * ...unless the client spends more than that here in this long: then its slice
 * is what it spends in this long (still at most LEASE_SHARE of its limit), so
 * that the slice reserved ahead outlasts a round trip to Redis from a busy,
 * loaded event loop (tens of milliseconds at worst) and no request waits for it.
 */
export const LEASE_AHEAD_MS = 50

/**
 * Adds `amount` to the shared count of `key`, starting its window if new: the
 * count after, and the window's time left. `perRequest`: the amount is one
 * request's own cost (a limit counted exactly), not a slice reserved ahead.
 */
export type Reserve = (key: string, amount: number, windowMs: number, perRequest: boolean) => Promise<CounterState>

export type Leases = {
  /** Synchronous when the lease covers the cost; rejects when a reservation the request had to wait for failed. */
  incr (key: string, cost: number, windowMs: number, limit: number): CounterState | Promise<CounterState>
  /** The same when the lease answers without waiting (it covers the cost, or the window's budget is spent); otherwise undefined, and nothing counted. */
  incrNow (key: string, cost: number, windowMs: number, limit: number): CounterState | undefined
}

type Lease = {
  /** Requests reserved in Redis and not yet admitted here. */
  left: number
  /** The shared count as Redis last told it (every instance's reservations, this one's included), at most the limit. */
  shared: number
  endsAtMs: number
  /** Redis has no budget left in this window: nothing more to reserve until it ends. */
  spent: boolean
  refill: Promise<void> | undefined
  /** The slice last asked for: the next is asked for once less than this is left. */
  slice: number
  /** Requests admitted here since the last slice was asked for, and when that was: the client's pace. */
  admitted: number
  sinceMs: number
}

/** Leases kept before expired ones are swept (one per client seen in the last minute). */
const SWEEP_AT_SIZE = 50_000

/** The slice for a client admitted here at `perMs` requests a millisecond (0: not known yet). */
export function leaseSize (limit: number, cost: number, perMs = 0): number {
  return Math.max(cost, Math.min(Math.floor(limit * LEASE_SHARE), Math.max(MAX_LEASE, Math.ceil(perMs * LEASE_AHEAD_MS))))
}

/** `onBackgroundError`: a reservation made ahead of need failed (no request waits for it). */
export function createLeases (reserve: Reserve, onBackgroundError: (err: Error) => void): Leases {
  const leases = new Map<string, Lease>()

  function refill (key: string, lease: Lease, cost: number, windowMs: number, limit: number, nowMs: number): Promise<void> {
    const size = leaseSize(limit, cost, lease.admitted / Math.max(1, nowMs - lease.sinceMs))
    Object.assign(lease, { slice: size, admitted: 0, sinceMs: nowMs })
    const pending = reserve(key, size, windowMs, size === cost).then(({ count, ttlMs }) => {
      lease.refill = undefined
      const nowMs = Date.now()
      // The window ended while this slice was asked for: what is left of the old one is void.
      if (lease.endsAtMs <= nowMs) Object.assign(lease, { left: 0, shared: 0, spent: false })
      lease.endsAtMs = nowMs + ttlMs
      if (count <= limit) {
        lease.left += size
        lease.shared = count
        return
      }
      // Over the limit: what was left under it is this slice's, the rest is nobody's.
      lease.left += Math.max(0, limit - (count - size))
      lease.shared = limit
      lease.spent = true
    }, (err: Error) => {
      lease.refill = undefined
      throw err
    })
    lease.refill = pending
    return pending
  }

  function fresh (key: string, nowMs: number): Lease {
    if (leases.size >= SWEEP_AT_SIZE) for (const [k, l] of leases) if (l.endsAtMs <= nowMs && l.refill === undefined) leases.delete(k)
    const lease: Lease = { left: 0, shared: 0, endsAtMs: Number.POSITIVE_INFINITY, spent: false, refill: undefined, slice: 0, admitted: 0, sinceMs: nowMs }
    leases.set(key, lease)
    return lease
  }

  function incrNow (key: string, cost: number, windowMs: number, limit: number): CounterState | undefined {
    const nowMs = Date.now()
    let lease = leases.get(key)
    // A lease waiting for its slice is kept: the answer says which window the slice is in.
    if (lease === undefined || (lease.endsAtMs <= nowMs && lease.refill === undefined)) lease = fresh(key, nowMs)
    if (lease.left >= cost) {
      lease.left -= cost
      lease.admitted += cost
      // Reserved ahead, as soon as less than a whole slice is left: the slice in flight has a
      // whole slice's worth of requests to arrive in, so a busy client does not wait for
      // Redis whenever a round trip takes longer than half a slice of its requests (a
      // loaded event loop reads the answer a full turn or more after sending). Never more
      // than two slices held: the loss bound above.
      if (!lease.spent && lease.refill === undefined && lease.left < lease.slice && leaseSize(limit, cost) > cost) {
        refill(key, lease, cost, windowMs, limit, nowMs).catch(onBackgroundError)
      }
      return { count: lease.shared - lease.left, ttlMs: Math.max(0, lease.endsAtMs - nowMs) }
    }
    if (lease.spent) return { count: lease.shared - lease.left + cost, ttlMs: Math.max(0, lease.endsAtMs - nowMs) }
    return undefined
  }

  function incr (key: string, cost: number, windowMs: number, limit: number): CounterState | Promise<CounterState> {
    const now = incrNow(key, cost, windowMs, limit)
    if (now !== undefined) return now
    const lease = leases.get(key)!
    const waited = lease.refill ?? refill(key, lease, cost, windowMs, limit, Date.now())
    return waited.then(() => incr(key, cost, windowMs, limit))
  }

  return { incr, incrNow }
}
