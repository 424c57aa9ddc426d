// Verifications, told to every gateway instance on the database. Whoever
// stores a verified contract sends a NOTIFY in the same transaction
// (delivered at commit); each instance LISTENs and forgets what it decoded,
// named and cached for responses, so a contract verified through one
// instance decodes on all of them within PostgreSQL's delivery time.
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import { hearChannel, type ChannelListener } from '../db/listen.ts'

const CHANNEL = 'tg_contracts_verified'
const ADDRESS = /^0x[0-9a-f]{40}$/

/** Announces that a contract was stored as verified at `address` (lowercase 0x-hex); heard at the transaction's commit. */
export async function announceVerification (trx: Knex | Knex.Transaction, address: string): Promise<void> {
  await trx.raw('select pg_notify(?, ?)', [CHANNEL, address])
}

export type VerificationHearingOptions = {
  databaseUrl: string
  log: Logger
  /** A verification stored at `address`, by any instance (this one too); undefined: notices may have been missed, anything may have changed. */
  onVerified: (address: string | undefined) => void
}

/** Hears verifications from a connection of its own, opened again when lost; resolves after the first attempt to listen. */
export async function hearVerifications ({ databaseUrl, log, onVerified }: VerificationHearingOptions): Promise<ChannelListener> {
  return await hearChannel({
    databaseUrl,
    channel: CHANNEL,
    log,
    what: 'contract verifications',
    // Anything else is a later version's notice: whatever it says, something was verified.
    onPayload: (payload) => { onVerified(ADDRESS.test(payload) ? payload : undefined) },
    onMissed: () => { onVerified(undefined) }
  })
}
