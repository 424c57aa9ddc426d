// decode.ts as the pure function it is: RPC answers recorded from a real Geth
// (test/fixtures/rpc/*.json, written by test/fixtures/rpc/record.ts) become
// rows, without a node. The expectations come from what the recorder sent
// (its notes) and from the raw answers, not from decode itself.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { Interface } from 'ethers'
import { decodeBlockBundle } from '../../../core/indexer/decode.ts'
import { recoverCliqueSigner } from '../../../core/indexer/clique-signer.ts'
import type { BlockBundle, RpcBlock, RpcReceipt, RpcTraceResult } from '../../../core/indexer/types.ts'
import { ZERO_ADDRESS } from '../../../core/rows.ts'
import type { RpcFixture } from '../../fixtures/rpc/record.ts'

async function loadFixture (name: string): Promise<RpcFixture & { bundle: BlockBundle }> {
  const fixture = JSON.parse(await readFile(new URL(`../../fixtures/rpc/${name}.json`, import.meta.url), 'utf8')) as RpcFixture
  const { answers } = fixture
  const signer = answers.clique_getSigner as string | undefined
  return {
    ...fixture,
    bundle: {
      block: answers.eth_getBlockByNumber as RpcBlock,
      receipts: answers.eth_getBlockReceipts as RpcReceipt[],
      traces: (answers.debug_traceBlockByNumber ?? []) as RpcTraceResult[],
      signer: signer?.toLowerCase() as BlockBundle['signer']
    }
  }
}

const decimal = (hex: string): string => BigInt(hex).toString()

t.test('decodeBlockBundle() decodes the genesis: no transactions, no traces', async (t) => {
  const { bundle } = await loadFixture('genesis')
  const rows = decodeBlockBundle(bundle)
  t.match(rows.block, {
    number: 0,
    hash: bundle.block.hash,
    parent_hash: `0x${'00'.repeat(32)}`,
    gas_limit: decimal(bundle.block.gasLimit),
    transaction_count: 0,
    internal_transaction_count: 0
  })
  t.same([rows.transactions, rows.logs, rows.internalTransactions, rows.tokenTransfers], [[], [], [], []])
})

t.test('decodeBlockBundle() decodes a contract creation whose constructor mints', async (t) => {
  const { bundle, notes } = await loadFixture('token-deploy')
  const rows = decodeBlockBundle(bundle)
  t.equal(rows.transactions.length, 1)
  t.match(rows.transactions[0], { hash: notes.transaction, from: notes.creator, to: null, created_contract: notes.token, status: 1, has_token_transfers: true })
  t.match(rows.internalTransactions, [{ type: 'create', trace_address: [], from: notes.creator, to: null, created_contract: notes.token, trace_index: 0 }])
  t.match(rows.tokenTransfers, [{ token_address: notes.token, token_type: 'ERC-20', from: ZERO_ADDRESS, to: notes.creator, amount: notes.supply, token_id: null }], 'the mint is a transfer from the zero address')
  t.equal(rows.block.signer, bundle.signer, 'the signer is clique_getSigner\'s')
})

t.test('decodeBlockBundle() decodes a block of six transactions with receipts, traces and token transfers', async (t) => {
  const { bundle, notes } = await loadFixture('mixed-block')
  const n = notes as { sender: string, recipient: string, token: string, caller: string, transactions: Record<string, string>, revertReason: string }
  const rows = decodeBlockBundle(bundle)
  const tx = (name: string) => rows.transactions.find((row) => row.hash === n.transactions[name])!
  const frames = (name: string) => rows.internalTransactions.filter((row) => row.transaction_hash === n.transactions[name])

  t.same(rows.transactions.map((row) => row.hash), Object.values(n.transactions), 'every transaction, in the order sent')
  t.same(rows.transactions.map((row) => row.transaction_index), [0, 1, 2, 3, 4, 5])
  t.equal(rows.block.transaction_count, 6)
  t.equal(rows.block.signer, recoverCliqueSigner(bundle.block), 'the signer Geth names is the one the seal recovers to')
  t.equal(decodeBlockBundle({ ...bundle, signer: undefined }).block.signer, bundle.signer, 'and decode recovers it without the clique API')

  for (const [i, receipt] of bundle.receipts.entries()) {
    t.match(rows.transactions[i], {
      status: Number(receipt.status),
      gas_used: decimal(receipt.gasUsed),
      cumulative_gas_used: decimal(receipt.cumulativeGasUsed),
      effective_gas_price: decimal(receipt.effectiveGasPrice),
      from: n.sender
    }, `transaction ${i} carries its receipt`)
  }
  t.equal(rows.transactions.at(-1)!.cumulative_gas_used, rows.block.gas_used, 'the last cumulative gas is the block\'s')

  t.match(tx('payment'), { to: n.recipient, value: '7', gas_used: '21000', has_token_transfers: false, error: null })
  t.same(frames('payment').map((f) => [f.type, f.trace_address]), [['call', []]])

  t.match(tx('tokenTransfer'), { to: n.token, value: '0', has_token_transfers: true })
  t.match(rows.tokenTransfers.filter((x) => x.transaction_hash === n.transactions.tokenTransfer),
    [{ token_address: n.token, token_type: 'ERC-20', from: n.sender, to: n.recipient, amount: '1234', token_id: null }])

  t.match(tx('forward'), { to: n.caller, has_token_transfers: true })
  t.match(frames('forward'), [
    { type: 'call', trace_address: [], from: n.sender, to: n.caller, trace_index: 0 },
    { type: 'call', trace_address: [0], from: n.caller, to: n.token, trace_index: 1, error: null }
  ], 'the forwarded call is an internal transaction below the top frame')
  t.match(rows.tokenTransfers.filter((x) => x.transaction_hash === n.transactions.forward), [{ from: n.caller, to: n.recipient, amount: '10' }])
  t.same(rows.logs.filter((l) => l.transaction_hash === n.transactions.forward).map((l) => l.address), [n.token, n.caller], 'the token\'s Transfer, then the caller\'s Forwarded')

  const [spawnCall, create] = frames('spawn')
  t.match(spawnCall, { type: 'call', to: n.caller })
  t.match(create, { type: 'create', trace_address: [0], from: n.caller, to: null })
  t.match(create!.created_contract, /^0x[0-9a-f]{40}$/, 'the created contract\'s address')

  const revertReason = new Interface(['function Error(string)']).encodeFunctionData('Error', [n.revertReason])
  t.match(tx('fail'), { status: 0, error: 'execution reverted', revert_reason: revertReason, has_token_transfers: false })

  t.match(tx('tryFail'), { status: 1, error: null, revert_reason: null })
  t.match(frames('tryFail'), [{ trace_address: [], error: null }, { trace_address: [0], from: n.caller, to: n.caller, error: 'execution reverted' }],
    'a failed inner call under a transaction that succeeded')

  t.equal(rows.block.internal_transaction_count, rows.internalTransactions.length)
  t.equal(rows.logs.length, bundle.receipts.reduce((count, r) => count + r.logs.length, 0), 'every log of every receipt')
  t.same(rows.logs.map((l) => l.log_index), rows.logs.map((_, i) => i), 'log indexes run through the block')
})

t.test('decodeBlockBundle() is pure: the same answers give the same rows and are left as they were', async (t) => {
  const { bundle } = await loadFixture('mixed-block')
  const before = structuredClone(bundle)
  t.same(decodeBlockBundle(bundle), decodeBlockBundle(bundle))
  t.same(bundle, before)
})
