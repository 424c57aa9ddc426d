// The decoded inputs and logs of a page, decoded before the page is written
// (decoding may read an ABI, presenting is synchronous). As Blockscout: a
// creation, an input shorter than a selector or a call to an address without
// code decode to nothing. The decoder caches per (to, input) and per log.
import type { Decoder, DecodedInput, DecodedLog } from '../../core/decode/index.ts'
import type { TransactionJsonRow } from '../../core/queries/transactions/rest-transaction-json.ts'
import type { LogRecord } from '../../core/queries/transactions/logs.ts'
import type { TokenTransferRecord, TransferCall } from '../../core/queries/tokens/token-transfers.ts'
import { logTopics } from './present-log.ts'
import { hashBytes } from './present.ts'
import { methodOf, transferSelector } from './present-transaction.ts'

type Call = Pick<TransactionJsonRow, 'to' | 'to_is_contract' | 'input'>

export async function decodeTransactionInput (decoder: Decoder, tx: Call): Promise<DecodedInput | null> {
  return tx.to !== null && tx.to_is_contract && tx.input.length >= 10 ? await decoder.decodeInput(tx.to, tx.input) : null
}

/** Each row's decoded input, by row. */
export async function decodeTransactionInputs (decoder: Decoder, rows: readonly TransactionJsonRow[]): Promise<(tx: TransactionJsonRow) => DecodedInput | null> {
  const decoded = new Map<TransactionJsonRow, DecodedInput | null>()
  await Promise.all(rows.map(async (tx) => decoded.set(tx, await decodeTransactionInput(decoder, tx))))
  return (tx) => decoded.get(tx) ?? null
}

/** Each log's decoding, by its emitter's verified ABI or the selector table. */
export async function decodeLogs (decoder: Decoder, rows: readonly LogRecord[]): Promise<(log: LogRecord) => DecodedLog | null> {
  const decoded = new Map<LogRecord, DecodedLog | null>()
  await Promise.all(rows.map(async (l) => decoded.set(l, await decoder.decodeLog(l.address, logTopics(l), l.data))))
  return (l) => decoded.get(l) ?? null
}

/**
 * Each transfer's `method` as its transaction's detail gives it (methodOf):
 * the page's distinct transactions' calls read in one query (`readCalls`)
 * and decoded together, each target's ABI read once (decodeInputs).
 */
export async function transferMethods (decoder: Decoder, readCalls: (options: { hashes: Buffer[] }) => Promise<TransferCall[]>,
  rows: readonly TokenTransferRecord[]): Promise<(t: TokenTransferRecord) => string | null> {
  const hashes = new Map<string, Buffer>()
  for (const t of rows) if (transferSelector(t) !== null) hashes.set(t.transaction_hash, hashBytes(t.transaction_hash))
  const calls = await readCalls({ hashes: [...hashes.values()] })
  const decoded = await decoder.decodeInputs(calls.map((c) => ({ to: c.to_is_contract ? c.to : null, input: c.input })))
  const methods = new Map(calls.map((c, i) => [c.hash, methodOf(c.input, decoded[i] ?? null)]))
  return (t) => methods.get(t.transaction_hash) ?? transferSelector(t)
}
