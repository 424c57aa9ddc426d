// The rate limiter's counters: in Redis when REDIS_URL is set, so that every
// instance behind a load balancer spends one budget per client; in memory
// otherwise. Losing Redis must not stop the service: while it is away each
// instance counts in its own memory (limits hold per instance), and counting
// goes back to Redis when ioredis reconnects. In Redis a client's budget is
// reserved in slices and spent locally (leases.ts): most requests cost no
// round trip, and the instances together still never exceed the limit.
import { Redis } from 'ioredis'
import type { Logger } from '../logger.ts'
import { createMemoryCounters, type CounterState } from './memory-counters.ts'
import { createLeases } from './leases.ts'

export type { CounterState }

// One round trip: add a slice, start the window on the first hit, report what is left of it.
const INCR_SCRIPT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[1])
if count == tonumber(ARGV[1]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {count, tonumber(ARGV[2])}
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return {count, ttl}`

/** A client's count in Redis is under this prefix and its limiter key. */
export const COUNTER_KEY_PREFIX = 'tg:rl:'
/** A Redis slower than this is treated as away for that request: the limiter must not add latency. */
const REDIS_COMMAND_TIMEOUT_MS = 250
const REDIS_RECONNECT_MAX_MS = 2_000
/** After a failed command, how long to count in memory before trying Redis again. */
const REDIS_PAUSE_MS = 1_000

export type CounterStore = {
  /**
   * Adds `cost` to the client's count in the window and says what it is now.
   * Synchronous when counted in memory or within a lease: the hot path need
   * not wait for a microtask it does not need.
   */
  incr (key: string, cost: number, windowMs: number, limit: number): CounterState | Promise<CounterState>
  /**
   * The same when it needs no waiting (in memory, or within a lease);
   * otherwise undefined, and nothing counted: then `incr` waits for Redis.
   */
  incrNow (key: string, cost: number, windowMs: number, limit: number): CounterState | undefined
  /** Where counts go now. */
  backend (): 'redis' | 'memory'
  close (): Promise<void>
}

type IncrScript = (key: string, amount: number, windowMs: number) => Promise<[number, number]>
type RedisWithScript = Redis & { tgRateLimitIncr: IncrScript, tgRateLimitSlice: IncrScript }

/** The script under a second name that ioredis sends at once, outside its automatic pipelines. */
const SLICE_COMMAND = 'tgRateLimitSlice'

export function createCounterStore ({ redisUrl, log }: { redisUrl: string | undefined, log: Logger }): CounterStore {
  const memory = createMemoryCounters()
  if (redisUrl === undefined) {
    const incr = (key: string, cost: number, windowMs: number): CounterState => memory.incr(key, cost, windowMs)
    return { incr, incrNow: incr, backend: () => 'memory', close: async () => {} }
  }
  const redis = new Redis(redisUrl, {
    // Commands fail at once while disconnected instead of queueing behind a dead server.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    // Requests arriving together send their increments in one write: a round trip per burst, not per request.
    enableAutoPipelining: true,
    // A slice (at most one in flight per client) has nothing to wait for: sent at once, it skips the
    // pipeline's setImmediate (the rest of the event loop's turn) and costs about half the CPU.
    autoPipeliningIgnoredCommands: [SLICE_COMMAND],
    retryStrategy: (attempt) => Math.min(attempt * 200, REDIS_RECONNECT_MAX_MS)
  }) as RedisWithScript
  redis.defineCommand('tgRateLimitIncr', { numberOfKeys: 1, lua: INCR_SCRIPT })
  redis.defineCommand(SLICE_COMMAND, { numberOfKeys: 1, lua: INCR_SCRIPT })
  // A failed command (a timeout on a live connection, say) sets Redis aside for a while; a lost connection until ioredis is back.
  let pausedUntilMs = 0
  // Starts as expected: a Redis that does not answer at start is logged like one lost later.
  let counting: 'redis' | 'memory' = 'redis'
  const backend = (): 'redis' | 'memory' => redis.status === 'ready' && Date.now() >= pausedUntilMs ? 'redis' : 'memory'
  let closing = false
  const pause = (err: Error): void => {
    pausedUntilMs = Date.now() + REDIS_PAUSE_MS
    note(err.message)
  }
  const leases = createLeases(async (key, amount, windowMs, perRequest) => {
    const [count, ttlMs] = await (perRequest ? redis.tgRateLimitIncr(COUNTER_KEY_PREFIX + key, amount, windowMs) : redis.tgRateLimitSlice(COUNTER_KEY_PREFIX + key, amount, windowMs))
    if (counting === 'memory') note('answered again')
    return { count, ttlMs }
  }, pause)
  const note = (reason: string): void => {
    if (closing) return
    const now = backend()
    if (now === counting) return
    counting = now
    if (now === 'redis') log.info('rate limits are counted in Redis')
    else log.warn({ reason }, 'Redis is unavailable: rate limits are counted in this instance\'s memory until it is back')
  }
  redis.on('ready', () => note('connected'))
  redis.on('error', (err: Error) => note(err.message))
  redis.on('close', () => note('connection closed'))

  return {
    incr (key, cost, windowMs, limit) {
      if (backend() !== 'redis') return memory.incr(key, cost, windowMs)
      const state = leases.incr(key, cost, windowMs, limit)
      if (!(state instanceof Promise)) return state
      return state.catch((err: Error) => {
        pause(err)
        return memory.incr(key, cost, windowMs)
      })
    },
    incrNow: (key, cost, windowMs, limit) => backend() === 'redis' ? leases.incrNow(key, cost, windowMs, limit) : memory.incr(key, cost, windowMs),
    backend,
    async close () {
      closing = true
      redis.disconnect()
    }
  }
}
