// Key changes, told to every gateway instance on the database. Whoever creates,
// revokes or rotates a key sends a NOTIFY in the same transaction (delivered at
// commit); each instance LISTENs and drops that key from its cache, so a
// revocation holds everywhere as soon as PostgreSQL delivers it (milliseconds).
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import { hearChannel, type ChannelListener } from '../db/listen.ts'

const CHANNEL = 'tg_api_keys_changed'

/** Announces that the key with this hash changed; heard at the transaction's commit. */
export async function announceKeyChange (trx: Knex | Knex.Transaction, keyHash: Buffer): Promise<void> {
  await trx.raw('select pg_notify(?, ?)', [CHANNEL, keyHash.toString('hex')])
}

/**
 * Calls `onChange(hashHex)` for every key change, listening again whenever the
 * connection is lost: `onLost` when it is (nothing is heard meanwhile),
 * `onMissed` once it listens again (changes made meanwhile were missed).
 */
export async function listenForKeyChanges (databaseUrl: string, log: Logger, onChange: (hashHex: string) => void, { onLost, onMissed }: { onLost: () => void, onMissed: () => void }): Promise<ChannelListener> {
  return await hearChannel({ databaseUrl, channel: CHANNEL, log, what: 'API key changes', onPayload: onChange, onLost, onMissed })
}
