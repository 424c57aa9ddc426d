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
  /** Called once when the connection fails or ends: the caller listens again (notices may have been missed). */
  onEnd: () => void
}

/** Calls `onPayload` for every notice on the channel until closed or the connection is lost. */
export async function listenOnChannel (o: ListenOptions): Promise<ChannelListener> {
  const client = new pg.Client({ connectionString: o.databaseUrl, keepAlive: true })
  let closing = false
  const end = (): void => { if (!closing) { closing = true; o.onEnd() } }
  client.on('error', (err) => {
    o.log.warn({ err: err.message }, `lost the connection that hears ${o.what}`)
    end()
  })
  client.on('end', end)
  client.on('notification', ({ payload }) => { if (payload !== undefined) o.onPayload(payload) })
  await client.connect()
  try {
    await client.query(`listen ${o.channel}`)
  } catch (err) {
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
