// The state stage (core/indexer/state.ts) on a chain with every kind of coin
// movement: fees and tips, transfers, value sent on by contracts (a fan-out of
// internal calls), creations, a revert and a self-destruct. A batch's balances
// come from two reads and the blocks' sums; when the sums do not come to the
// node's figure, from reads block by block. Either way every balance is the
// node's at that block.
import t from 'tap'
import { fetchBlockBundles } from '../../../core/indexer/fetch.ts'
import { decodeBlockBundle } from '../../../core/indexer/decode.ts'
import { fetchBlockStates } from '../../../core/indexer/state.ts'
import type { BlockRows, Hex } from '../../../core/indexer/types.ts'
import { buildActivityChain } from '../../support/activity-chain.ts'
import { wrongStoredBalances } from '../../support/indexer.ts'

const BATCH = 8
const { app, head, receipts } = await buildActivityChain(t)
const rpc = app.geth.rpc

async function decodedBatches (): Promise<BlockRows[][]> {
  const batches: BlockRows[][] = []
  for (let from = 0; from <= head; from += BATCH) {
    // A short last batch would be read block by block: the one before takes it in.
    const to = head - (from + BATCH - 1) < 3 ? head : from + BATCH - 1
    batches.push((await fetchBlockBundles(rpc, from, to)).map(decodeBlockBundle))
    if (to === head) break
  }
  return batches
}

/** Each balance the stage gave that is not the node's eth_getBalance at its block. */
async function wrongBalances (batch: BlockRows[]): Promise<string[]> {
  const rows = batch.flatMap((b) => b.state.coinBalances)
  const answers = await rpc.batch<Hex>(rows.map((r) => ({ method: 'eth_getBalance', params: [r.address, '0x' + r.block_number.toString(16)] })))
  return rows.filter((r, i) => r.value !== BigInt(answers[i]!).toString()).map((r) => `${r.address} at ${r.block_number}: ${r.value}`)
}

t.test('the blocks\' sums give every balance, checked against the node\'s at the end of each batch', async (t) => {
  let rows = 0
  for (const batch of await decodedBatches()) {
    const { balances } = await fetchBlockStates(rpc, batch)
    const blocks = `blocks ${batch[0]!.block.number} to ${batch[batch.length - 1]!.block.number}`
    t.equal(balances, 'summed', `${blocks}: summed, not read block by block`)
    t.same(await wrongBalances(batch), [], blocks)
    rows += batch.reduce((n, b) => n + b.state.coinBalances.length, 0)
  }
  t.ok(rows > 100, `${rows} balances`)
})

t.test('a batch of one or two blocks is read block by block: two reads would save nothing', async (t) => {
  const two = (await fetchBlockBundles(rpc, head - 1, head)).map(decodeBlockBundle)
  t.ok(two.every((rows) => rows.transactions.length > 0), 'both blocks move coins')
  t.equal((await fetchBlockStates(rpc, two)).balances, 'per block', 'read block by block')
  t.same(await wrongBalances(two), [], 'the node\'s balances')
})

t.test('sums that miss a movement are not kept: the batch is read block by block', async (t) => {
  const batch = (await decodedBatches()).find((b) => b.some((rows) => rows.transactions.some((tx) => tx.hash === receipts.fan.hash)))!
  const fan = batch.find((rows) => rows.transactions.some((tx) => tx.hash === receipts.fan.hash))!
  // As if the trace had left out one payment of the fan-out.
  const payment = fan.internalTransactions.findIndex((f) => f.transaction_hash === receipts.fan.hash && f.trace_index > 0 && f.value !== '0')
  t.ok(payment >= 0, 'the fan-out pays from inside the contract')
  fan.internalTransactions.splice(payment, 1)
  t.equal((await fetchBlockStates(rpc, batch)).balances, 'sums refused', 'read block by block')
  t.same(await wrongBalances(batch), [], 'and every balance is still the node\'s')
})

t.test('what the indexer stored is the node\'s balance at every block', async (t) => {
  const { wrong, rows } = await wrongStoredBalances(app.db.knex, rpc)
  t.same(wrong, [], `all ${rows} rows`)
})
