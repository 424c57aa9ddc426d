// Blockscout's confirmation_duration of a sealed transaction it did not see
// pending: [0, the average block time in ms] (TransactionView's
// processing_time_duration); [] while no pace is known. This index never sees
// the pool, so every transaction it lists answers so. The pace is read at most
// once per refresh for all routes that list transactions.
import type { FastifyInstance } from 'fastify'
import { createRefreshing } from '../../core/stats/refreshing.ts'
import { confirmationDurationJson } from '../present/confirmation-duration.ts'

const PACE_REFRESH_MS = 5000

declare module 'fastify' {
  interface FastifyInstance {
    /** The confirmation_duration member's JSON text for a sealed transaction. */
    confirmationDuration: () => Promise<string>
  }
}

export function decorateConfirmationDuration (scope: FastifyInstance): void {
  const pace = createRefreshing(async () => await scope.queries.readBlockPace(), {
    maxAgeMs: PACE_REFRESH_MS,
    onError: (err) => scope.log.warn({ err }, 'reading the block pace failed; serving the last value')
  })
  scope.decorate('confirmationDuration', async () => {
    return confirmationDurationJson((await pace.get()).value.blockTimeMs)
  })
}
