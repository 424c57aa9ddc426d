// Reading the Etherscan-style API's query parameters. Every parameter arrives
// as a string (the route's schema refuses repeated ones); a value an action
// cannot use ends the request with status "0" and the reason, thrown as
// NotOkError and answered by the dispatcher (index.ts), so an action reads its
// parameters in a few lines and never reaches the database with bad input.
import { notOk, type Envelope } from './envelope.ts'

/** A parameter an action cannot use: answered 200 in Etherscan's error form, this message the result. */
export class NotOkError extends Error {
  readonly envelope: Envelope
  constructor (message: string) {
    super(message)
    this.envelope = notOk(message)
  }
}

export type Params = Record<string, string | undefined>

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const HASH = /^0x[0-9a-fA-F]{64}$/
const DIGITS = /^[0-9]+$/

/** Etherscan's words for an address it cannot read. */
export const INVALID_ADDRESS = 'Error! Invalid address format'

/** Etherscan's result window: page × offset may not pass it. */
export const MAX_RESULT_WINDOW = 10_000
/** Past any chain's height and inside PostgreSQL's bigint: larger block numbers read as this. */
export const MAX_BLOCK = Number.MAX_SAFE_INTEGER

export const toBytes = (hex: string): Buffer => Buffer.from(hex.slice(2), 'hex')

/** A 20-byte address, or an error answering `message`. */
export function readAddress (value: string | undefined, message = INVALID_ADDRESS): Buffer {
  if (value === undefined || !ADDRESS.test(value)) throw new NotOkError(message)
  return toBytes(value)
}

export function readHash (value: string | undefined, message = 'Invalid txhash format'): Buffer {
  if (value === undefined || !HASH.test(value)) throw new NotOkError(message)
  return toBytes(value)
}

/** A block number from decimal digits; larger than any block reads as MAX_BLOCK, never an overflow. */
export function readBlockNumber (value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === '') return fallback
  if (!DIGITS.test(value)) throw new NotOkError(`Invalid ${name}`)
  const n = BigInt(value)
  return n > BigInt(MAX_BLOCK) ? MAX_BLOCK : Number(n)
}

/** A positive whole number; undefined when absent. */
function readPositive (value: string | undefined, name: string): bigint | undefined {
  if (value === undefined || value === '') return undefined
  if (!DIGITS.test(value) || BigInt(value) === 0n) throw new NotOkError(`Invalid ${name} number`)
  return BigInt(value)
}

export type Sort = 'asc' | 'desc'

export function readSort (value: string | undefined, fallback: Sort = 'asc'): Sort {
  if (value === undefined || value === '') return fallback
  if (value !== 'asc' && value !== 'desc') throw new NotOkError('Invalid sort order, it must be asc or desc')
  return value
}

/** Rows to skip and to return: page 1-based, offset the page size. */
export type Paging = { skip: number, limit: number }

/**
 * Etherscan's page and offset. Without them the first `defaultOffset` rows
 * come back; `maxOffset` caps a page (getLogs answers at most 1000 a request);
 * past the window Etherscan's own error. BigInt products: a page of 10^30
 * is an error, not an overflow.
 */
export function readPaging (params: Params, defaultOffset = MAX_RESULT_WINDOW, maxOffset = MAX_RESULT_WINDOW): Paging {
  const page = readPositive(params.page, 'page') ?? 1n
  const offset = readPositive(params.offset, 'offset') ?? BigInt(defaultOffset)
  if (page * offset > BigInt(MAX_RESULT_WINDOW)) {
    throw new NotOkError(`Result window is too large, PageNo x Offset size must be less than or equal to ${MAX_RESULT_WINDOW}`)
  }
  const size = offset > BigInt(maxOffset) ? maxOffset : Number(offset)
  return { skip: Number(page - 1n) * size, limit: size }
}

/** Etherscan's schema fragment for page, offset and sort. */
export const PAGING_PARAMS = {
  page: { type: 'string', description: 'Page number, from 1 (with offset)' },
  offset: { type: 'string', description: `Page size; page × offset may not pass ${MAX_RESULT_WINDOW}` },
  sort: { type: 'string', description: 'asc (oldest first, the default) or desc' }
}
