// Blockscout's Log: always four topics (missing ones null); decoding needs an
// ABI, so `decoded` stays null until contract verification brings them.
import type { LogRecord } from '../../core/queries/logs.ts'
import { addressObject, hex, timestamp } from './present.ts'

export function presentLog (l: LogRecord) {
  return {
    transaction_hash: hex(l.transaction_hash),
    address: addressObject(l.address, l.address_is_contract),
    topics: [l.topic0, l.topic1, l.topic2, l.topic3].map((t) => t === null ? null : hex(t)),
    data: hex(l.data),
    index: l.log_index,
    decoded: null,
    smart_contract: l.transaction_to === null ? null : addressObject(l.transaction_to, l.transaction_to_is_contract),
    block_hash: hex(l.block_hash),
    block_number: l.block_number,
    block_timestamp: timestamp(l.timestamp)
  }
}
