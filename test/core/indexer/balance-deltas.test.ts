// balanceDeltas (core/indexer/balance-deltas.ts): fees, tips and the value of
// frames, block by block. The chain test of what it feeds is state.test.ts.
import { test } from 'tap'
import { balanceDeltas } from '../../../core/indexer/balance-deltas.ts'
import type { BlockRows, Hex } from '../../../core/indexer/types.ts'

const A = '0x' + 'aa'.repeat(20) as Hex
const B = '0x' + 'bb'.repeat(20) as Hex
const C = '0x' + 'cc'.repeat(20) as Hex
const D = '0x' + 'dd'.repeat(20) as Hex
const SIGNER = '0x' + '5e'.repeat(20) as Hex

type Frame = { type: string, from: Hex, to: Hex | null, value: string, error?: string, trace_address: number[], created_contract?: Hex }

/** A block of one transaction from A: 21,000 gas at 3 wei with a base fee of 1, and its frames. */
function block (frames: Frame[], signer: Hex | null = SIGNER): BlockRows {
  return {
    block: { number: 7, signer, base_fee_per_gas: '1' },
    transactions: [{ from: A, gas_used: '21000', effective_gas_price: '3' }],
    internalTransactions: frames.map((f) => ({ error: null, created_contract: null, ...f }))
  } as unknown as BlockRows
}

const plain = (deltas: Map<Hex, bigint> | undefined) => Object.fromEntries([...deltas!].map(([k, v]) => [k, v.toString()]))

test('the sender pays the fee, the signer gets the tip, the base fee burns', async (t) => {
  t.same(plain(balanceDeltas(block([{ type: 'call', from: A, to: B, value: '0', trace_address: [] }]))), { [A]: '-63000', [SIGNER]: '42000' })
  t.same(plain(balanceDeltas({ ...block([]), transactions: [] })), {}, 'an empty block changes nothing')
  t.equal(balanceDeltas(block([], null)), undefined, 'without the signer the tip has nowhere to go')
})

test('value moves with calls, creates and self-destructs, not with delegate or static calls', async (t) => {
  const deltas = balanceDeltas(block([
    { type: 'call', from: A, to: B, value: '100', trace_address: [] },
    { type: 'delegatecall', from: B, to: C, value: '100', trace_address: [0] },
    { type: 'staticcall', from: B, to: C, value: '0', trace_address: [1] },
    { type: 'create2', from: B, to: null, value: '30', trace_address: [2], created_contract: D },
    { type: 'selfdestruct', from: D, to: C, value: '30', trace_address: [2, 0] }
  ]))
  t.same(plain(deltas), { [A]: String(-63000 - 100), [SIGNER]: '42000', [B]: '70', [D]: '0', [C]: '30' })
})

test('a failed frame moves nothing, and neither does anything inside it', async (t) => {
  const deltas = balanceDeltas(block([
    { type: 'call', from: A, to: B, value: '100', trace_address: [] },
    { type: 'call', from: B, to: C, value: '40', trace_address: [0], error: 'execution reverted' },
    { type: 'call', from: C, to: D, value: '5', trace_address: [0, 0] },
    { type: 'call', from: B, to: D, value: '1', trace_address: [1] }
  ]))
  t.same(plain(deltas), { [A]: String(-63000 - 100), [SIGNER]: '42000', [B]: '99', [D]: '1' }, 'the sibling after the failed frame still pays')
  const failedTransaction = balanceDeltas(block([
    { type: 'call', from: A, to: B, value: '100', trace_address: [], error: 'out of gas' },
    { type: 'call', from: B, to: C, value: '40', trace_address: [0] }
  ]))
  t.same(plain(failedTransaction), { [A]: '-63000', [SIGNER]: '42000' }, 'a failed transaction only pays its fee')
})
