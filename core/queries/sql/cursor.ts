// Keyset cursors arrive from the query string, where a client may send any
// integer. Each value is clamped into its column's range first: a tampered
// cursor then reads an empty page or the first one, never an SQL range error.
const INT32_MIN = -(2 ** 31)
const INT32_MAX = 2 ** 31 - 1

const clamp = (n: number, min: number, max: number): number => Math.min(max, Math.max(min, Math.trunc(n)))

/** A bigint column such as block_number. */
export const clampBigint = (n: number): number => clamp(n, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)

/** An integer column such as transaction_index or log_index. */
export const clampInteger = (n: number): number => clamp(n, INT32_MIN, INT32_MAX)

/** Past every position within a block (or log), in ascending order. */
export const AFTER_ALL = INT32_MAX
/** Before every position within a block (or log), in descending order. */
export const BEFORE_ALL = INT32_MIN

/** Whether `n` fits a keyset column: block_number is a bigint, every other key column an integer. */
export const fitsKeyColumn = (column: string, n: unknown): boolean =>
  Number.isSafeInteger(n) && (column === 'block_number' || ((n as number) >= INT32_MIN && (n as number) <= INT32_MAX))
