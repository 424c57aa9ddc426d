// A LISTEN on a PostgreSQL channel from a connection of its own (a pool's
// connections come and go, and a LISTEN lives only as long as its session).
import pg from 'pg'
import type { Logger } from '../logger.ts'

export type ChannelListener = { close (): Promise<void> }

export type ListenOptions = {
  databaseUrl: string
  channel: string
  log: Logger
  /** What the connection hears, for the warning when it is lost. */
  what: string
  onPayload: (payload: string) => void
  /** Called once when the listening connection fails or ends: the caller listens again (notices may have been missed). Not called when listenOnChannel() rejects. */
  onEnd: () => void
}

/** Calls `onPayload` for every notice on the channel until closed or the connection is lost. */
export async function listenOnChannel (o: ListenOptions): Promise<ChannelListener> {
  const client = new pg.Client({ connectionString: o.databaseUrl, keepAlive: true })
  let listening = false
  let closing = false
  const end = (): void => { if (listening && !closing) { closing = true; o.onEnd() } }
  client.on('error', (err) => {
    if (!listening) return
    o.log.warn({ err: err.message }, `lost the connection that hears ${o.what}`)
    end()
  })
  client.on('end', end)
  client.on('notification', ({ payload }) => { if (payload !== undefined) o.onPayload(payload) })
  try {
    await client.connect()
    await client.query(`listen ${o.channel}`)
    listening = true
  } catch (err) {
    // The caller hears of this failure from the rejection alone: pg also
    // emits 'error' and 'end' for a connection that never listened, and a
    // caller that retried on both would double its attempts on every failure
    // (thousands of connections a second after a PostgreSQL restart of some
    // seconds: seen by npm run faults).
    closing = true
    await client.end().catch(() => {})
    throw err
  }
  return {
    async close () {
      closing = true
      await client.end().catch(() => {})
    }
  }
}

/** After a failed or lost LISTEN, the next attempt waits this long. */
export const RELISTEN_MS = 1_000

export type ChannelHearingOptions = Omit<ListenOptions, 'onEnd'> & {
  /** Listening again after the connection was lost or could not be opened: notices sent meanwhile were missed. */
  onMissed: () => void
  /** The connection was lost or could not be opened: nothing is heard until onMissed. */
  onLost?: () => void
}

/**
 * listenOnChannel() kept up: a connection that fails or cannot be opened is
 * opened again RELISTEN_MS later, until closed. Resolves after the first
 * attempt, listening or not (the failure is logged and retried).
 */
export async function hearChannel (o: ChannelHearingOptions): Promise<ChannelListener> {
  let listener: ChannelListener | undefined
  let closed = false
  let retry: NodeJS.Timeout | undefined
  let missed = false
  const again = (): void => {
    missed = true
    o.onLost?.()
    retry = setTimeout(() => { listen().catch(() => {}) }, RELISTEN_MS)
  }
  async function listen (): Promise<void> {
    retry = undefined
    if (closed) return
    try {
      listener = await listenOnChannel({ ...o, onEnd: () => { listener = undefined; again() } })
    } catch (err) {
      o.log.warn({ err: (err as Error).message }, `cannot listen for ${o.what}; trying again`)
      again()
      return
    }
    if (closed) { await listener.close(); return }
    if (missed) { missed = false; o.onMissed() }
  }
  await listen()
  return {
    async close () {
      closed = true
      clearTimeout(retry)
      await listener?.close()
    }
  }
}
