// Blockscout's InternalTransaction and the Parity-style raw trace, from call frames.
import type { InternalTransactionRecord, TraceFrameRecord } from '../../core/queries/transactions/internal-transactions.ts'
import { addressObject, epochTimestamp } from './present.ts'
import { NO_NAMES, type AddressNames } from '../../core/address-names/index.ts'

/** The addresses an internal transaction shows, for the page's names. */
export const internalTransactionAddresses = (i: InternalTransactionRecord): Array<string | null> => [i.from, i.to, i.created_contract]

/** Blockscout names a frame by its call type (call, delegatecall, staticcall) when it has one. */
export function presentInternalTransaction (i: InternalTransactionRecord, names: AddressNames = NO_NAMES) {
  return {
    error: i.error,
    success: i.error === null,
    type: i.type,
    transaction_hash: i.transaction_hash,
    transaction_index: i.transaction_index,
    from: addressObject(i.from, i.from_is_contract, names),
    to: i.to === null ? null : addressObject(i.to, i.to_is_contract, names),
    created_contract: i.created_contract === null ? null : addressObject(i.created_contract, true, names),
    value: i.value,
    block_number: i.block_number,
    timestamp: epochTimestamp(i.timestamp),
    index: i.trace_index,
    gas_limit: i.gas
  }
}

const CALL_TYPES = new Set(['call', 'callcode', 'delegatecall', 'staticcall'])
const quantity = (decimal: string): string => '0x' + BigInt(decimal).toString(16)
const data = (bytes: string | null): string => bytes ?? '0x'

/**
 * One Parity trace per frame, depth first: calls carry callType, input and
 * output; creations init and, when they succeed, the new address and its
 * code (the create frame's output); a failed frame has `error` and no result.
 */
export function presentRawTrace (hash: string, frames: TraceFrameRecord[]) {
  const children = new Map<string, number>()
  for (const f of frames) {
    if (f.trace_address.length === 0) continue
    const parent = f.trace_address.slice(0, -1).join(',')
    children.set(parent, (children.get(parent) ?? 0) + 1)
  }
  return frames.map((f) => {
    const isCall = CALL_TYPES.has(f.type)
    const action = isCall
      ? { callType: f.type, from: f.from, to: f.to ?? undefined, gas: quantity(f.gas), input: f.input, value: quantity(f.value) }
      : f.type === 'selfdestruct'
        ? { from: f.from, to: f.to ?? undefined, gas: quantity(f.gas), input: f.input, value: quantity(f.value) }
        : { from: f.from, gas: quantity(f.gas), init: f.input, value: quantity(f.value) }
    const result = isCall || f.type === 'selfdestruct'
      ? { gasUsed: quantity(f.gas_used), output: data(f.output) }
      : { gasUsed: quantity(f.gas_used), address: f.created_contract ?? undefined, code: data(f.output) }
    return {
      type: isCall ? 'call' : f.type,
      action,
      ...(f.error === null ? { result } : { error: f.error }),
      subtraces: children.get(f.trace_address.join(',')) ?? 0,
      traceAddress: f.trace_address,
      transactionHash: hash
    }
  })
}
