// The indexer on a real Geth and PostgreSQL: every stored row matches what the node says.
import t from 'tap'
import { Contract, ContractFactory, JsonRpcProvider, Wallet, Interface, parseEther } from 'ethers'
import { build } from '../../helper.ts'
import { compileContract, TEST_TOKEN_SOURCE } from '../../support/contracts.ts'
import { hex, waitForIndexed } from '../../support/indexer.ts'
import { waitForReceipt } from '../../support/chain.ts'
import { nextEvent } from '../../../core/indexer/events.ts'
import { createIndexer } from '../../../core/indexer/index.ts'
import { waitFor } from '../../support/gateway-process.ts'
import { TIP_LAG_BLOCKS } from '../../../core/queries/blocks/indexing-status.ts'
import type { RpcBlock } from '../../../core/indexer/types.ts'
import { recoverCliqueSigner } from '../../../core/indexer/clique-signer.ts'

const { app, url, chain } = await build(t)
const provider = new JsonRpcProvider(`${url}/rpc`, 793788, { staticNetwork: true, cacheTimeout: -1 })
t.teardown(() => provider.destroy())
const sender = new Wallet(chain.account.privateKey, provider)
const recipient = Wallet.createRandom().address
const db = app.db.knex
const rpc = app.geth.rpc

const token = await deploy(TEST_TOKEN_SOURCE, 'TestToken', ['Indexed', 'IDX', 10n ** 24n])
const caller = await deploy(new URL('../../fixtures/contracts/Caller.sol', import.meta.url), 'Caller', [])
const txs = {
  transfer: await send(sender.sendTransaction({ to: recipient, value: parseEther('2') })),
  tokenTransfer: await send(token.getFunction('transfer')(await caller.getAddress(), 1000n)),
  forward: await send(caller.getFunction('forward')(await token.getAddress(), recipient, 10n)),
  spawn: await send(caller.getFunction('spawn')()),
  fund: await send(sender.sendTransaction({ to: await caller.getAddress(), value: 12345n })),
  payOut: await send(caller.getFunction('payOut')(recipient)),
  // A fixed gas limit: estimating would refuse a transaction that reverts.
  fail: await send(caller.getFunction('fail')({ gasLimit: 100_000 }), 0)
}

async function deploy (source: URL, name: string, args: unknown[]): Promise<Contract> {
  const compiled = await compileContract(source, name)
  const contract = await new ContractFactory(compiled.abi as never, compiled.bytecode, sender).deploy(...args)
  await waitForReceipt(provider, contract.deploymentTransaction()!.hash)
  return contract as Contract
}

async function send (sent: Promise<{ hash: string }>, expectedStatus = 1): Promise<string> {
  const { hash } = await sent
  const receipt = await waitForReceipt(provider, hash)
  if (receipt?.status !== expectedStatus) throw new Error(`${hash} has status ${receipt?.status}`)
  return hash
}

const head = await waitForIndexed(app)

t.test('every block matches the node, with the clique signer recovered', async (t) => {
  const rows = await db('blocks').orderBy('number')
  t.equal(rows.length, head + 1, 'genesis to head, none missing')
  for (const row of rows) {
    const block = await rpc.call<Record<string, string>>('eth_getBlockByNumber', ['0x' + Number(row.number).toString(16), false])
    t.equal(hex(row.hash), block.hash)
    t.equal(hex(row.parent_hash), block.parentHash)
    t.equal(row.gas_used, BigInt(block.gasUsed!).toString())
    t.equal(row.transaction_count, (block.transactions as unknown as string[]).length)
    t.equal(row.timestamp.getTime() / 1000, Number(block.timestamp))
    if (Number(row.number) > 0) {
      t.equal(hex(row.signer), (await rpc.call<string>('clique_getSigner', [block.hash])).toLowerCase(), `block ${row.number} signer`)
    }
  }
})

t.test('recoverCliqueSigner() recovers the seal as Geth does (the fallback without the clique API)', async (t) => {
  for (let n = 1; n <= head; n++) {
    const block = await rpc.call<RpcBlock>('eth_getBlockByNumber', ['0x' + n.toString(16), false])
    t.equal(recoverCliqueSigner(block), (await rpc.call<string>('clique_getSigner', [block.hash])).toLowerCase(), `block ${n}`)
  }
})

t.test('every transaction carries its receipt fields', async (t) => {
  const rows = await db('transactions').orderBy(['block_number', 'transaction_index'])
  t.equal(rows.length, 2 + Object.keys(txs).length, 'two deployments and the calls')
  for (const row of rows) {
    const receipt = await rpc.call<Record<string, string | null>>('eth_getTransactionReceipt', [hex(row.hash)])
    t.equal(row.status, Number(receipt.status))
    t.equal(row.gas_used, BigInt(receipt.gasUsed!).toString())
    t.equal(hex(row.from), receipt.from)
    t.equal(hex(row.to), receipt.to)
    t.equal(hex(row.created_contract), receipt.contractAddress)
    t.equal(row.effective_gas_price, BigInt(receipt.effectiveGasPrice!).toString())
  }
  const failed = await db('transactions').where('hash', Buffer.from(txs.fail.slice(2), 'hex')).first()
  t.equal(failed.status, 0)
  t.equal(failed.error, 'execution reverted')
  const reason = Interface.from(['error Error(string)']).parseError(hex(failed.revert_reason)!)
  t.equal(reason?.args[0], 'always fails', 'the revert reason is kept')
})

t.test('logs match the receipts', async (t) => {
  const total = await db('logs').count({ n: '*' }).first()
  let expected = 0
  for (const row of await db('transactions').select('hash')) {
    const receipt = await rpc.call<{ logs: Array<{ logIndex: string, address: string, topics: string[], data: string }> }>('eth_getTransactionReceipt', [hex(row.hash)])
    expected += receipt.logs.length
    const logs = await db('logs').where('transaction_hash', row.hash).orderBy('log_index')
    t.same(logs.map((l) => [l.log_index, hex(l.address), [l.topic0, l.topic1, l.topic2, l.topic3].filter(Boolean).map(hex), hex(l.data)]),
      receipt.logs.map((l) => [Number(l.logIndex), l.address, l.topics, l.data]))
  }
  t.equal(Number(total!.n), expected)
})

t.test('internal transactions match the call tracer', async (t) => {
  const frames = async (hash: string) => await db('internal_transactions').where('transaction_hash', Buffer.from(hash.slice(2), 'hex')).orderBy('trace_index')
  const forward = await frames(txs.forward)
  t.same(forward.map((f) => [f.type, f.trace_address]), [['call', []], ['call', [0]]], 'the call into the token')
  t.equal(hex(forward[1].to), (await token.getAddress()).toLowerCase())
  const spawn = await frames(txs.spawn)
  t.equal(spawn[1].type, 'create')
  const trace = await rpc.call<{ calls: Array<{ to: string }> }>('debug_traceTransaction', [txs.spawn, { tracer: 'callTracer' }])
  t.equal(hex(spawn[1].created_contract), trace.calls[0]!.to, 'the created child contract')
  const payOut = await frames(txs.payOut)
  t.same(payOut.map((f) => [f.type, f.value]), [['call', '0'], ['call', '12345']], 'the value sent out')
  const plain = await frames(txs.transfer)
  t.equal(plain.length, 1, 'a plain transfer has only its own frame')
  const counted = await db('blocks').sum({ n: 'internal_transaction_count' }).first()
  const stored = await db('internal_transactions').count({ n: '*' }).first()
  t.equal(Number(counted!.n), Number(stored!.n))
})

t.test('GET /health reports the indexer head and lag', async (t) => {
  const body = (await app.inject({ method: 'GET', url: '/health' })).json()
  t.equal(body.indexer.role, 'writer')
  t.equal(body.indexer.head, head)
  t.equal(body.indexer.lag_blocks, 0)
})

t.test('GET /api/v2/main-page/indexing-status answers in the Blockscout shape', async (t) => {
  const response = await app.inject({ method: 'GET', url: '/api/v2/main-page/indexing-status' })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { finished_indexing: true, finished_indexing_blocks: true, indexed_blocks_ratio: '1', indexed_internal_transactions_ratio: '1' })
  const halfway = await app.queries.readIndexingStatus(2 * head + 1 + TIP_LAG_BLOCKS)
  t.same(halfway, { finished_indexing: false, finished_indexing_blocks: false, indexed_blocks_ratio: '0.50', indexed_internal_transactions_ratio: null })
  const unknown = await app.inject({ method: 'GET', url: '/api/v2/main-page/indexing-status?verbose=1' })
  t.equal(unknown.statusCode, 422, 'an unknown parameter is refused as Blockscout refuses it')
  t.equal(unknown.json().errors[0].source.pointer, '/verbose')
})

t.test('new blocks are published as events once stored', async (t) => {
  const published = nextEvent(app.indexer.events, 'block')
  const hash = await send(sender.sendTransaction({ to: recipient, value: 3n }))
  const { blocks, storedHere } = await published
  t.ok(blocks.some((rows) => rows.transactions.some((tx) => tx.hash === hash)), 'the event carries the transaction')
  t.ok(storedHere, 'stored by this instance, the writer')
  const stored = await db('transactions').where('hash', Buffer.from(hash.slice(2), 'hex')).first()
  t.ok(stored, 'and it is queryable when the event fires')
})

t.test('a chain rewound and re-sealed replaces the indexed blocks with no orphaned rows', async (t) => {
  const top = await waitForIndexed(app)
  const forkAt = top - 3
  const before = await db('blocks').where('number', '>', forkAt).pluck('hash')
  // A second instance, a reader, hears of the rollback through the commit feed.
  const reader = createIndexer({ db, databaseUrl: app.db.url, rpc, log: app.log })
  reader.start()
  t.teardown(async () => await reader.stop())
  await waitFor('the second indexer to listen', async () => reader.status().role === 'reader' ? true : undefined)
  const readerHeard = nextEvent(reader.events, 'reorg')
  const writerHeard = nextEvent(app.indexer.events, 'reorg')
  await rpc.call('debug_setHead', ['0x' + forkAt.toString(16)])
  // The rewound node has fewer blocks than the index: the extra ones must go.
  t.same(await writerHeard, { type: 'reorg', ancestor: forkAt, removed: 3, storedHere: true }, 'the writer publishes the rollback as an event')
  t.same(await readerHeard, { type: 'reorg', ancestor: forkAt, removed: 3, storedHere: false }, 'and a reader hears it from the writer\'s notice')
  await waitForIndexed(app)
  t.equal(Number((await db('blocks').max({ n: 'number' }).first())!.n), forkAt)
  // New transactions re-seal heights above the fork with new hashes. The
  // first sends nothing: the recipient keeps the balance of its last row,
  // which must be the one below the fork, not the replaced blocks' (which
  // paid it 3 wei) that the indexer had stored.
  await send(sender.sendTransaction({ to: recipient, value: 0n, nonce: await provider.getTransactionCount(sender.address, 'latest') }))
  await send(sender.sendTransaction({ to: recipient, value: 2n }))
  const newHead = await waitForIndexed(app)
  const rows = await db('blocks').orderBy('number')
  t.equal(rows.length, newHead + 1)
  for (const row of rows) {
    const block = await rpc.call<{ hash: string }>('eth_getBlockByNumber', ['0x' + Number(row.number).toString(16), false])
    t.equal(hex(row.hash), block.hash, `block ${row.number} is the node's`)
  }
  t.notOk(rows.some((r) => before.some((b: Buffer) => b.equals(r.hash))), 'no replaced block remains')
  const orphans = await db.raw(`
    select (select count(*) from transactions t where not exists (select 1 from blocks b where b.number = t.block_number)) +
           (select count(*) from logs l where not exists (select 1 from blocks b where b.number = l.block_number)) as n`)
  t.equal(Number(orphans.rows[0].n), 0)
  const nodeTransactions = rows.reduce((n, r) => n + r.transaction_count, 0)
  t.equal(Number((await db('transactions').count({ n: '*' }).first())!.n), nodeTransactions)
  const balances = await db('coin_balances').where('address', Buffer.from(recipient.slice(2), 'hex')).andWhere('block_number', '>', forkAt - 3).select('block_number', 'value')
  t.ok(balances.some((b) => Number(b.block_number) > forkAt), 'the recipient has rows above the fork')
  for (const b of balances) {
    const node = BigInt(await rpc.call<string>('eth_getBalance', [recipient, '0x' + Number(b.block_number).toString(16)])).toString()
    t.equal(b.value, node, `the recipient's balance at ${b.block_number} is the node's`)
  }
})
