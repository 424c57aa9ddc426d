// Name changes, told to every gateway instance on the database: whoever tags
// an address (`npm run ops -- tag`, another process) or stores a verified
// contract sends a NOTIFY naming it; each instance LISTENs and forgets the
// names it keeps (index.ts), and with them the answers that showed them.
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import { listenOnChannel, type ChannelListener } from '../db/listen.ts'

const CHANNEL = 'tg_address_names_changed'

/** Announces that what `address` (0x-hex) is called changed; heard at commit. */
export async function announceNameChange (db: Knex | Knex.Transaction, address: string): Promise<void> {
  await db.raw('select pg_notify(?, ?)', [CHANNEL, address.toLowerCase()])
}

/** Calls `onChange(address)` for every name change; `onEnd` when the connection is lost (notices may have been missed). */
export async function listenForNameChanges (databaseUrl: string, log: Logger, onChange: (address: string) => void, onEnd: () => void): Promise<ChannelListener> {
  return await listenOnChannel({ databaseUrl, channel: CHANNEL, log, what: 'address name changes', onPayload: onChange, onEnd })
}
