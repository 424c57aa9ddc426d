// Capped exponential backoff for restarting a child process (Geth, embedded
// PostgreSQL) that died: quick after a one-off crash, slow when it keeps dying.
export const RESTART_BASE_DELAY_MS = 500
export const RESTART_MAX_DELAY_MS = 30_000

/** The wait before the restart that follows `failuresInARow` (1 or more) failures. */
export function restartDelayMs (failuresInARow: number): number {
  return Math.min(RESTART_BASE_DELAY_MS * 2 ** (Math.max(1, failuresInARow) - 1), RESTART_MAX_DELAY_MS)
}
