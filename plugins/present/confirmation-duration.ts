// Blockscout's confirmation_duration of a sealed transaction it did not see
// pending: [0, the average block time in ms] (TransactionView's
// processing_time_duration); [] while no pace is known. REST lists and the
// socket's transaction events show it alike.

/** The member's JSON text for a pace (core/queries/blocks/block-pace.ts). */
export const confirmationDurationJson = (blockTimeMs: number | null): string => blockTimeMs === null ? '[]' : `[0,${Math.round(blockTimeMs)}]`
