// Name changes, told to every gateway instance on the database: whoever tags
// an address (`npm run ops -- tag`, another process) or stores a verified
// contract sends a NOTIFY naming it; each instance LISTENs and forgets the
// names it keeps (index.ts), and with them the answers that showed them.
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import { hearChannel, type ChannelListener } from '../db/listen.ts'

const CHANNEL = 'tg_address_names_changed'

/** Announces that what `address` (0x-hex) is called changed; heard at commit. */
export async function announceNameChange (db: Knex | Knex.Transaction, address: string): Promise<void> {
  await db.raw('select pg_notify(?, ?)', [CHANNEL, address.toLowerCase()])
}

/**
 * Calls `onChange()` for every name change, and when notices may have been
 * missed (the connection lost and opened again): anything may have changed.
 * Resolves after the first attempt to listen; kept up until closed.
 */
export async function hearNameChanges (databaseUrl: string, log: Logger, onChange: () => void): Promise<ChannelListener> {
  return await hearChannel({ databaseUrl, channel: CHANNEL, log, what: 'address name changes', onPayload: onChange, onMissed: onChange })
}
