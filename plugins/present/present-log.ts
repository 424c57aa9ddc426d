// Blockscout's Log: always four topics (missing ones null), `decoded` by the
// emitter's verified ABI or the selector table (core/decode; plugins/present/decodings.ts).
import type { LogRecord } from '../../core/queries/transactions/logs.ts'
import type { DecodedLog } from '../../core/decode/index.ts'
import { addressObject, epochTimestamp } from './present.ts'
import { NO_NAMES, type AddressNames } from '../../core/address-names/index.ts'

export const logTopics = (l: LogRecord): Array<string | null> => [l.topic0, l.topic1, l.topic2, l.topic3]

/** The addresses a log shows, for the page's names. */
export const logAddresses = (l: LogRecord): Array<string | null> => [l.address, l.transaction_to]

export function presentLog (l: LogRecord, decoded: DecodedLog | null, names: AddressNames = NO_NAMES) {
  return {
    transaction_hash: l.transaction_hash,
    address: addressObject(l.address, l.address_is_contract, names),
    topics: logTopics(l),
    data: l.data,
    index: l.log_index,
    decoded,
    smart_contract: l.transaction_to === null ? null : addressObject(l.transaction_to, l.transaction_to_is_contract, names),
    block_hash: l.block_hash,
    block_number: l.block_number,
    block_timestamp: epochTimestamp(l.timestamp)
  }
}
