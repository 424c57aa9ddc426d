// Pure: token transfers decoded from logs. ERC-20 and ERC-721 share the
// Transfer event; ERC-721 indexes the token id (four topics), ERC-20 puts the
// amount in data (three topics). ERC-1155 has TransferSingle and TransferBatch.
import { AbiCoder } from 'ethers'
import type { Hex, LogRow, TokenTransferRow } from './types.ts'

export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
export const TRANSFER_SINGLE_TOPIC = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62'
export const TRANSFER_BATCH_TOPIC = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb'

const abi = AbiCoder.defaultAbiCoder()
const topicAddress = (topic: string | null): Hex => `0x${topic!.slice(26)}`.toLowerCase() as Hex

export function decodeTokenTransfers (logs: LogRow[]): TokenTransferRow[] {
  return logs.flatMap((log) => {
    try {
      return decodeLog(log)
    } catch {
      // A contract emitting a look-alike event with another layout is not a token transfer.
      return []
    }
  })
}

function decodeLog (log: LogRow): TokenTransferRow[] {
  const base = {
    block_number: log.block_number,
    log_index: log.log_index,
    batch_index: 0,
    transaction_hash: log.transaction_hash,
    transaction_index: log.transaction_index,
    token_address: log.address
  }
  const topics = log.topic3 !== null ? 4 : log.topic2 !== null ? 3 : log.topic1 !== null ? 2 : log.topic0 !== null ? 1 : 0
  if (log.topic0 === TRANSFER_TOPIC && topics === 3 && log.data.length === 66) {
    return [{ ...base, token_type: 'ERC-20', from: topicAddress(log.topic1), to: topicAddress(log.topic2), amount: BigInt(log.data).toString(), token_id: null }]
  }
  if (log.topic0 === TRANSFER_TOPIC && topics === 4 && log.data === '0x') {
    return [{ ...base, token_type: 'ERC-721', from: topicAddress(log.topic1), to: topicAddress(log.topic2), amount: '1', token_id: BigInt(log.topic3!).toString() }]
  }
  if (log.topic0 === TRANSFER_SINGLE_TOPIC && topics === 4) {
    const [id, value] = abi.decode(['uint256', 'uint256'], log.data)
    return [{ ...base, token_type: 'ERC-1155', from: topicAddress(log.topic2), to: topicAddress(log.topic3), amount: value.toString(), token_id: id.toString() }]
  }
  if (log.topic0 === TRANSFER_BATCH_TOPIC && topics === 4) {
    const [ids, values] = abi.decode(['uint256[]', 'uint256[]'], log.data) as unknown as [bigint[], bigint[]]
    if (ids.length !== values.length) return []
    return ids.map((id, i) => ({
      ...base,
      batch_index: i,
      token_type: 'ERC-1155' as const,
      from: topicAddress(log.topic2),
      to: topicAddress(log.topic3),
      amount: values[i]!.toString(),
      token_id: id.toString()
    }))
  }
  return []
}
