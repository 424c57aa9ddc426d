import t from 'tap'
import { AbiCoder, zeroPadValue, toBeHex } from 'ethers'
import { TRANSFER_BATCH_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_TOPIC, decodeTokenTransfers } from '../../../core/indexer/token-transfers.ts'
import type { Hex, LogRow } from '../../../core/indexer/types.ts'

const A = '0x' + '11'.repeat(20) as Hex
const B = '0x' + '22'.repeat(20) as Hex
const TOKEN = '0x' + '33'.repeat(20) as Hex
const topic = (address: Hex) => zeroPadValue(address, 32) as Hex
const word = (n: bigint) => toBeHex(n, 32) as Hex
const log = (topics: Array<Hex | null>, data: Hex): LogRow => ({
  block_number: 5,
  log_index: 2,
  transaction_hash: ('0x' + 'ab'.repeat(32)) as Hex,
  transaction_index: 0,
  address: TOKEN,
  topic0: topics[0] ?? null,
  topic1: topics[1] ?? null,
  topic2: topics[2] ?? null,
  topic3: topics[3] ?? null,
  data
})

t.test('decodeTokenTransfers() tells ERC-20 from ERC-721 by the indexed token id', async (t) => {
  const [erc20] = decodeTokenTransfers([log([TRANSFER_TOPIC, topic(A), topic(B)], word(1000n))])
  t.match(erc20, { token_type: 'ERC-20', from: A, to: B, amount: '1000', token_id: null, batch_index: 0 })
  const [erc721] = decodeTokenTransfers([log([TRANSFER_TOPIC, topic(A), topic(B), word(77n)], '0x')])
  t.match(erc721, { token_type: 'ERC-721', amount: '1', token_id: '77' })
})

t.test('decodeTokenTransfers() reads ERC-1155 single and batch transfers', async (t) => {
  const operator = topic(A)
  const [single] = decodeTokenTransfers([log([TRANSFER_SINGLE_TOPIC, operator, topic(A), topic(B)], AbiCoder.defaultAbiCoder().encode(['uint256', 'uint256'], [9n, 4n]) as Hex)])
  t.match(single, { token_type: 'ERC-1155', from: A, to: B, token_id: '9', amount: '4' })
  const batch = decodeTokenTransfers([log([TRANSFER_BATCH_TOPIC, operator, topic(A), topic(B)], AbiCoder.defaultAbiCoder().encode(['uint256[]', 'uint256[]'], [[1n, 2n], [10n, 20n]]) as Hex)])
  t.same(batch.map((r) => [r.batch_index, r.token_id, r.amount]), [[0, '1', '10'], [1, '2', '20']])
})

t.test('decodeTokenTransfers() skips look-alikes and malformed data', async (t) => {
  t.same(decodeTokenTransfers([
    log([TRANSFER_TOPIC, topic(A)], word(1n)),
    log([TRANSFER_TOPIC, topic(A), topic(B)], '0x1234'),
    log([TRANSFER_BATCH_TOPIC, topic(A), topic(A), topic(B)], '0xdeadbeef'),
    log([('0x' + '00'.repeat(32)) as Hex], '0x')
  ]), [])
})
