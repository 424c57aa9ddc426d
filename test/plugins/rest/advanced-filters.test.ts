// Blockscout's advanced filter on a real chain with token activity: every
// item the node holds (its transactions, the frames of its call traces, the
// transfers its logs record), walked page by page newest first, and each
// filter against the same items filtered here; shapes against Blockscout's
// OpenAPI description. Also the method list, and bad input.
import t from 'tap'
import { AbiCoder, getAddress, id } from 'ethers'
import { build } from '../../helper.ts'
import { writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { OPENAPI_SPEC_PRESENT, checkSpec } from '../../support/openapi.ts'
import { walkPages } from '../../support/pages.ts'
import { checkBadInput } from '../../support/rest.ts'
import { INDEXED_TIMEOUT_MS, buildTokenChain } from '../../support/token-chain.ts'
import { KNOWN_METHODS } from '../../../plugins/rest/advanced-filters.ts'

const { wallets, allocFile } = await writeFundedAlloc(t, 8)
const { app } = await build(t, { GENESIS_ALLOC: allocFile })
const rpc = app.geth.rpc
const chain = await buildTokenChain(rpc, wallets)
await waitForIndexed(app, INDEXED_TIMEOUT_MS)
const get = async (path: string) => await app.inject({ method: 'GET', url: path })
if (!OPENAPI_SPEC_PRESENT) t.comment('../shared/api is absent: responses are not checked against Blockscout\'s OpenAPI spec')

const TRANSFER = id('Transfer(address,address,uint256)')
const SINGLE = id('TransferSingle(address,address,address,uint256,uint256)')
const BATCH = id('TransferBatch(address,address,address,uint256[],uint256[])')
const abi = AbiCoder.defaultAbiCoder()
const lower = (a: string | null | undefined) => a === null || a === undefined ? null : a.toLowerCase()
const topicAddress = (topic: string) => '0x' + topic.slice(26)

/** An item as the node shows it. kind: 0 transaction, 1 transfer, 2 internal transaction (Blockscout's order within a transaction). */
type Expected = {
  hash: string, block: number, txIndex: number, kind: 0 | 1 | 2, sub: number, batch: number, type: string, from: string, to: string | null, amount: bigint, token: string | null, method: string | null, timestamp: number
}
type RpcTx = { hash: string, from: string, to: string | null, input: string, value: string, transactionIndex: string }
type Frame = { type: string, from: string, to?: string, value?: string, input: string, calls?: Frame[] }

const codeCache = new Map<string, boolean>()
async function hasCode (address: string): Promise<boolean> {
  if (!codeCache.has(address)) codeCache.set(address, (await rpc.call<string>('eth_getCode', [address, 'latest'])) !== '0x')
  return codeCache.get(address)!
}
/** The kind rule the gateway documents: a creation, a call with data to code, or a coin transfer. */
async function kindOf (creates: boolean, to: string | null, input: string): Promise<string> {
  if (creates) return 'contract_creation'
  return input.length > 2 && to !== null && await hasCode(to) ? 'contract_interaction' : 'coin_transfer'
}

async function nodeItems (): Promise<Expected[]> {
  const items: Expected[] = []
  const head = Number(await rpc.call<string>('eth_blockNumber', []))
  for (let n = 1; n <= head; n++) {
    const block = await rpc.call<{ timestamp: string, transactions: RpcTx[] }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, true])
    const traces = await rpc.call<Array<{ result: Frame }>>('debug_traceBlockByNumber', [`0x${n.toString(16)}`, { tracer: 'callTracer' }])
    const timestamp = Number(block.timestamp)
    for (const [i, tx] of block.transactions.entries()) {
      const method = tx.input.length >= 10 ? tx.input.slice(0, 10) : null
      const base = { hash: tx.hash, block: n, txIndex: Number(tx.transactionIndex), method, timestamp }
      items.push({ ...base, kind: 0, sub: 0, batch: 0, type: await kindOf(tx.to === null, tx.to, tx.input), from: lower(tx.from)!, to: lower(tx.to), amount: BigInt(tx.value), token: null })
      const frames: Frame[] = []
      const visit = (f: Frame) => { frames.push(f); f.calls?.forEach(visit) }
      visit(traces[i]!.result)
      for (const [index, f] of frames.entries()) {
        if (index === 0) continue
        const creates = f.type === 'CREATE' || f.type === 'CREATE2'
        items.push({ ...base, kind: 2, sub: index, batch: 0, type: await kindOf(creates, creates ? null : lower(f.to), f.input), from: lower(f.from)!, to: creates ? null : lower(f.to), amount: BigInt(f.value ?? '0x0'), token: null })
      }
    }
  }
  const logs = await rpc.call<Array<{ address: string, topics: string[], data: string, blockNumber: string, logIndex: string, transactionHash: string, transactionIndex: string }>>(
    'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', topics: [[TRANSFER, SINGLE, BATCH]] }])
  const byHash = new Map(items.filter((i) => i.kind === 0).map((i) => [i.hash, i]))
  for (const l of logs) {
    const tx = byHash.get(l.transactionHash)!
    const base = { hash: l.transactionHash, block: Number(l.blockNumber), txIndex: Number(l.transactionIndex), kind: 1 as const, sub: Number(l.logIndex), token: lower(l.address), method: tx.method, timestamp: tx.timestamp }
    if (l.topics[0] === TRANSFER) {
      const type = l.topics.length === 3 ? 'ERC-20' : 'ERC-721'
      items.push({ ...base, batch: 0, type, from: topicAddress(l.topics[1]!), to: topicAddress(l.topics[2]!), amount: type === 'ERC-20' ? BigInt(l.data) : 1n })
    } else if (l.topics[0] === SINGLE) {
      const [, value] = abi.decode(['uint256', 'uint256'], l.data)
      items.push({ ...base, batch: 0, type: 'ERC-1155', from: topicAddress(l.topics[2]!), to: topicAddress(l.topics[3]!), amount: value })
    } else {
      const [, values] = abi.decode(['uint256[]', 'uint256[]'], l.data) as unknown as [bigint[], bigint[]]
      values.forEach((value, i) => items.push({ ...base, batch: i, type: 'ERC-1155', from: topicAddress(l.topics[2]!), to: topicAddress(l.topics[3]!), amount: value }))
    }
  }
  return items.sort((a, b) => b.block - a.block || b.txIndex - a.txIndex || a.kind - b.kind || b.sub - a.sub || b.batch - a.batch)
}

const expected = await nodeItems()
const expectedKey = (e: Expected) => `${e.hash}:${e.kind}:${e.sub}:${e.batch}`
type Item = Record<string, any>
type Test = Parameters<typeof walkPages>[0] & { same (found: unknown, wanted: unknown, message: string): unknown }
const kindOfItem = (i: Item) => i.token_transfer_index !== null ? 1 : i.internal_transaction_index !== null ? 2 : 0
const key = (i: Item) => `${i.hash}:${kindOfItem(i)}:${i.internal_transaction_index ?? i.token_transfer_index ?? 0}:${i.token_transfer_batch_index ?? 0}`
const spec = (t: Test) => (body: unknown) => checkSpec(t, '/v2/advanced-filters', body)

async function walk (t: Test, params: Record<string, string>): Promise<Item[]> {
  const { items } = await walkPages(t, get, '/api/v2/advanced-filters', {
    key, resend: params, check: spec(t), cursorKeys: ['block_number', 'transaction_index', 'internal_transaction_index', 'token_transfer_index', 'token_transfer_batch_index', 'items_count']
  })
  return items
}

t.test('the chain has every kind of item the filter mixes', async (t) => {
  for (const type of ['coin_transfer', 'contract_interaction', 'contract_creation', 'ERC-20', 'ERC-721', 'ERC-1155']) t.ok(expected.some((e) => e.type === type), type)
  t.ok(expected.some((e) => e.kind === 2 && e.type === 'contract_creation'), 'an internal creation')
  t.ok(expected.some((e) => e.kind === 1 && e.batch > 0), 'an ERC-1155 batch')
  t.ok(expected.length > 150, `${expected.length} items: several pages`)
})

t.test('GET /api/v2/advanced-filters walks every item of the node once, newest first, in Blockscout\'s shape', async (t) => {
  const items = await walk(t, {})
  t.same(items.map(key), expected.map(expectedKey))
  const byKey = new Map(expected.map((e) => [expectedKey(e), e]))
  for (const item of items) {
    const e = byKey.get(key(item))
    if (e === undefined) continue
    const k = key(item)
    t.equal(item.type, e.type, `${k} type`)
    t.equal(lower(item.from.hash), e.from, `${k} from`)
    t.equal(lower(item.to?.hash), e.to, `${k} to`)
    t.equal(item.block_number, e.block, `${k} block`)
    t.equal(item.transaction_index, e.txIndex, `${k} index`)
    t.equal(item.method, e.method, `${k} method`)
    t.equal(item.timestamp, new Date(e.timestamp * 1000).toISOString().slice(0, -1) + '000Z', `${k} timestamp`)
    if (e.kind === 1) {
      t.equal(lower(item.token.address_hash), e.token, `${k} token`)
      t.equal(item.value, null, `${k} no value`)
      t.equal(BigInt(item.total.value ?? 1), e.amount, `${k} amount`)
      t.equal(item.token_transfer_batch_index, e.type === 'ERC-1155' && expected.some((o) => o.hash === e.hash && o.sub === e.sub && o.batch > 0) ? e.batch : null, `${k} batch index`)
    } else {
      t.equal(BigInt(item.value), e.amount, `${k} value`)
      t.equal(item.token, null, `${k} no token`)
    }
  }
  const reverted = items.find((i) => i.hash === chain.revertedTransaction && kindOfItem(i) === 0)
  t.not(reverted?.status, 'success', 'a reverted transaction says why')
  t.equal(items.find((i) => kindOfItem(i) === 0 && i.hash !== chain.revertedTransaction)?.status, 'success')
})

t.test('a cursor at any kind of item continues right after it', async (t) => {
  const picks = expected.filter((e, i) => i + 1 < expected.length && (i % 11 === 0 || e.kind !== expected[i + 1]!.kind))
  for (const e of picks) {
    const next = expected[expected.indexOf(e) + 1]!
    const cursor = new URLSearchParams({
      block_number: String(e.block),
      transaction_index: String(e.txIndex),
      internal_transaction_index: e.kind === 2 ? String(e.sub) : 'null',
      token_transfer_index: e.kind === 1 ? String(e.sub) : '',
      token_transfer_batch_index: e.kind === 1 ? String(e.batch) : 'null',
      items_count: '50'
    })
    const body = (await get(`/api/v2/advanced-filters?${cursor}`)).json()
    t.equal(key(body.items[0]), expectedKey(next), `after ${expectedKey(e)}`)
  }
})

/** Walks the API with `params` and compares with the node's items that `keep` keeps. */
async function checkFilter (t: Test, params: Record<string, string>, keep: (e: Expected) => boolean): Promise<void> {
  const wanted = expected.filter(keep).map(expectedKey)
  t.ok(wanted.length > 0, `${JSON.stringify(params)} keeps something`)
  t.ok(wanted.length < expected.length, `${JSON.stringify(params)} drops something`)
  t.same((await walk(t, params)).map(key), wanted, JSON.stringify(params))
}

const [deployer, holder0, , , holder3] = [chain.deployer.address, ...chain.holders.map((h) => h.address)].map((a) => a.toLowerCase()) as [string, string, string, string, string]
const token0 = chain.tokens[0]!.toLowerCase()
const caller = chain.caller.toLowerCase()

t.test('transaction_types: kinds and token types, any case, unknown entries dropped', async (t) => {
  await checkFilter(t, { transaction_types: 'COIN_TRANSFER' }, (e) => e.type === 'coin_transfer')
  await checkFilter(t, { transaction_types: 'contract_interaction,bogus' }, (e) => e.type === 'contract_interaction')
  await checkFilter(t, { transaction_types: 'CONTRACT_CREATION,ERC-721' }, (e) => e.type === 'contract_creation' || e.type === 'ERC-721')
  await checkFilter(t, { transaction_types: 'ERC-20,ERC-1155' }, (e) => e.type === 'ERC-20' || e.type === 'ERC-1155')
})

t.test('methods: the items of transactions that call a selector', async (t) => {
  const transfer = KNOWN_METHODS.find((m) => m.name === 'transfer')!.method_id
  const forward = chain.abi.caller.getFunction('forward')!.selector
  await checkFilter(t, { methods: transfer }, (e) => e.method === transfer)
  await checkFilter(t, { methods: `${forward},0xnothex1,${transfer.toUpperCase()}` }, (e) => e.method === forward || e.method === transfer)
  const body = (await get(`/api/v2/advanced-filters?methods=${transfer},${forward}`)).json()
  t.same(body.search_params.methods, { [transfer]: 'transfer' }, 'known methods named in search_params')
})

t.test('age_from and age_to: inclusive bounds on the block time', async (t) => {
  const times = [...new Set(expected.map((e) => e.timestamp))].sort((a, b) => a - b)
  const iso = (s: number) => new Date(s * 1000).toISOString()
  // The chain is sealed as fast as the machine goes: it may span only two seconds, or one.
  if (times.length > 1) {
    const [from, to] = times.length > 2 ? [times[Math.floor(times.length / 4)]!, times[Math.floor(times.length / 2)]!] : [times[1]!, times[1]!]
    await checkFilter(t, { age_from: iso(from), age_to: iso(to) }, (e) => e.timestamp >= from && e.timestamp <= to)
    await checkFilter(t, { age_from: iso(to) }, (e) => e.timestamp >= to)
  } else t.comment(`every item was sealed in the second ${iso(times[0]!)}: only the bounds around it are checked`)
  t.same((await get(`/api/v2/advanced-filters?age_from=${iso(times.at(-1)! + 100)}`)).json().items, [], 'after the last block: nothing')
  t.same((await get(`/api/v2/advanced-filters?age_to=${iso(times[0]! - 100)}`)).json().items, [], 'before the first block: nothing')
})

t.test('address filters: include and exclude, either or both sides', async (t) => {
  await checkFilter(t, { from_address_hashes_to_include: holder0 }, (e) => e.from === holder0)
  await checkFilter(t, { to_address_hashes_to_include: `${holder3},${caller}` }, (e) => e.to === holder3 || e.to === caller)
  await checkFilter(t, { from_address_hashes_to_include: deployer, to_address_hashes_to_include: caller, address_relation: 'AND' }, (e) => e.from === deployer && e.to === caller)
  await checkFilter(t, { from_address_hashes_to_include: holder0, to_address_hashes_to_include: holder3 }, (e) => e.from === holder0 || e.to === holder3)
  await checkFilter(t, { from_address_hashes_to_exclude: deployer }, (e) => e.from !== deployer)
  await checkFilter(t, { to_address_hashes_to_exclude: `${token0},${caller}` }, (e) => e.to !== token0 && e.to !== caller)
})

t.test('amount_from and amount_to: inclusive bounds on the value or the token amount', async (t) => {
  await checkFilter(t, { amount_from: '1000', amount_to: '1010' }, (e) => e.amount >= 1000n && e.amount <= 1010n)
  await checkFilter(t, { amount_from: '1' }, (e) => e.amount >= 1n)
})

t.test('token filters: a token\'s transfers, native coin items, exclusions', async (t) => {
  await checkFilter(t, { token_contract_address_hashes_to_include: token0 }, (e) => e.token === token0)
  await checkFilter(t, { token_contract_address_hashes_to_include: `NATIVE,${chain.multi}` }, (e) => e.kind !== 1 || e.token === chain.multi.toLowerCase())
  await checkFilter(t, { token_contract_address_hashes_to_exclude: 'native' }, (e) => e.kind === 1)
  await checkFilter(t, { token_contract_address_hashes_to_exclude: token0 }, (e) => e.token !== token0)
  const body = (await get(`/api/v2/advanced-filters?token_contract_address_hashes_to_include=${token0},native`)).json()
  t.same(Object.keys(body.search_params.tokens), [getAddress(token0)], 'the named token in search_params')
  t.equal(body.search_params.tokens[getAddress(token0)].symbol, 'TK0')
})

t.test('filters combine', async (t) => {
  await checkFilter(t, { transaction_types: 'ERC-20', from_address_hashes_to_include: deployer, amount_to: '1020' },
    (e) => e.type === 'ERC-20' && e.from === deployer && e.amount <= 1020n)
})

t.test('GET /api/v2/advanced-filters/csv: the same items as CSV, newest first', async (t) => {
  const all = await get('/api/v2/advanced-filters/csv')
  t.equal(all.statusCode, 200)
  t.match(all.headers['content-type'], /^text\/csv/)
  const lines = all.body.trimEnd().split('\r\n')
  t.equal(lines[0], 'TxHash,Type,MethodId,UtcTimestamp,FromAddress,ToAddress,CreatedContractAddress,Value,TokenContractAddressHash,TokenDecimals,TokenSymbol,TokenId,Amount,BlockNumber,Fee,Status')
  t.equal(lines.length - 1, expected.length, 'every item, over many pages')
  t.same(lines.slice(1).map((l) => { const [hash, type, , , , , , , , , , , , block] = l.split(','); return `${hash}:${type}:${block}` }),
    expected.map((e) => `${e.hash}:${e.type}:${e.block}`))
  const tokenRows = (await get(`/api/v2/advanced-filters/csv?token_contract_address_hashes_to_include=${token0}`)).body.trimEnd().split('\r\n').slice(1)
  const transfers = expected.filter((e) => e.token === token0)
  t.same(tokenRows.map((l) => { const f = l.split(','); return `${f[0]}:${lower(f[8])}:${f[12]}` }), transfers.map((e) => `${e.hash}:${e.token}:${e.amount}`), 'a token\'s transfers with their amounts')
  t.equal((await get('/api/v2/advanced-filters/csv?age_from=never')).statusCode, 422)
  const none = await get('/api/v2/advanced-filters/csv?age_to=2000-01-01T00:00:00Z')
  t.equal(none.statusCode, 200, 'a filter nothing fits: the header alone')
  t.equal(none.body.trimEnd().split('\r\n').length, 1)
  t.equal((await get('/api/v2/advanced-filters/csv?block_number=1')).statusCode, 422, 'no cursor: the export is whole')
})

t.test('bad values answer 422 with Blockscout\'s pointer', async (t) => {
  await checkBadInput(t, get, {
    invalid: [
      ['/api/v2/advanced-filters?block_number=abc', '/block_number'],
      ['/api/v2/advanced-filters?block_number=1&items_count=0', '/items_count'],
      ['/api/v2/advanced-filters?from_address_hashes_to_include=0x12', '/from_address_hashes_to_include'],
      ['/api/v2/advanced-filters?token_contract_address_hashes_to_include=gold', '/token_contract_address_hashes_to_include'],
      ['/api/v2/advanced-filters?age_from=yesterday', '/age_from'],
      ['/api/v2/advanced-filters?age_to=2026-13-45', '/age_to'],
      ['/api/v2/advanced-filters?age_from=0000-01-01', '/age_from'],
      ['/api/v2/advanced-filters?amount_from=-1', '/amount_from'],
      ['/api/v2/advanced-filters?internal_transaction_index=x', '/internal_transaction_index'],
      ['/api/v2/advanced-filters?colour=red', '/colour']
    ],
    harmless: ['/api/v2/advanced-filters?block_number=99999999999&transaction_index=2147483647', '/api/v2/advanced-filters?transaction_types=nothing&methods=0x']
  })
})

t.test('GET /api/v2/advanced-filters/methods lists common methods with their selectors', async (t) => {
  const response = await get('/api/v2/advanced-filters/methods')
  t.equal(response.statusCode, 200)
  const body = response.json()
  checkSpec(t, '/v2/advanced-filters/methods', body)
  t.ok(body.length >= 10)
  t.same(body.find((m: { name: string }) => m.name === 'transfer'), { method_id: '0xa9059cbb', name: 'transfer' })
  t.ok(body.every((m: { method_id: string, name: string }) => KNOWN_METHODS.some((k) => k.method_id === m.method_id) && m.method_id.length === 10))
})

t.test('?q= finds one method by selector or name (any case), a bare selector, or none', async (t) => {
  const approve = { method_id: id('approve(address,uint256)').slice(0, 10), name: 'approve' }
  t.same((await get('/api/v2/advanced-filters/methods?q=approve')).json(), [approve])
  t.same((await get('/api/v2/advanced-filters/methods?q=APPROVE')).json(), [approve])
  t.same((await get(`/api/v2/advanced-filters/methods?q=${approve.method_id}`)).json(), [approve])
  t.same((await get('/api/v2/advanced-filters/methods?q=0xDEADBEEF')).json(), [{ method_id: '0xdeadbeef', name: '' }])
  t.same((await get('/api/v2/advanced-filters/methods?q=frobnicate')).json(), [])
  checkSpec(t, '/v2/advanced-filters/methods', (await get('/api/v2/advanced-filters/methods?q=0xdeadbeef')).json())
  t.equal((await get('/api/v2/advanced-filters/methods?verbose=1')).statusCode, 422)
  t.equal((await get(`/api/v2/advanced-filters/methods?q=${'x'.repeat(201)}`)).statusCode, 422)
})
