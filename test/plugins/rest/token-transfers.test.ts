// REST token transfers and state changes on a real chain: transfers checked
// against the node's logs, balances against the node's state before and after
// each transaction, shapes against Blockscout's OpenAPI spec.
import t from 'tap'
import { AbiCoder, Contract, getAddress } from 'ethers'
import { buildActivityChain, MANY } from '../../support/activity-chain.ts'
import { OPENAPI_SPEC_PRESENT } from '../../support/openapi.ts'
import { checkBadInput, specCheck } from '../../support/rest.ts'
import { walkPages } from '../../support/pages.ts'

const chain = await buildActivityChain(t)
const { app, head, receipts, contracts, provider } = chain
const [alice, bob] = [chain.wallets[0]!, chain.wallets[1]!]
const get = async (path: string) => await app.inject({ method: 'GET', url: path })
if (!OPENAPI_SPEC_PRESENT) t.comment('../shared/api is absent: responses are not checked against Blockscout\'s OpenAPI spec')

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const SINGLE = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62'
const BATCH = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb'
const abi = AbiCoder.defaultAbiCoder()
const topicAddress = (topic: string) => getAddress('0x' + topic.slice(26))

type Expected = { hash: string, block: number, logIndex: number, position: number, token: string, type: string, from: string, to: string, id: string | null, amount: string }

/** The node's token transfers, decoded from its logs: one per ERC-1155 batch item. */
async function nodeTransfers (): Promise<Expected[]> {
  const logs = await provider.getLogs({ fromBlock: 0, toBlock: head, topics: [[TRANSFER, SINGLE, BATCH]] })
  return logs.flatMap((l) => {
    const base = { hash: l.transactionHash, block: l.blockNumber, logIndex: l.index, token: getAddress(l.address) }
    if (l.topics[0] === TRANSFER && l.topics.length === 3) return [{ ...base, position: 0, type: 'ERC-20', from: topicAddress(l.topics[1]!), to: topicAddress(l.topics[2]!), id: null, amount: BigInt(l.data).toString() }]
    if (l.topics[0] === TRANSFER) return [{ ...base, position: 0, type: 'ERC-721', from: topicAddress(l.topics[1]!), to: topicAddress(l.topics[2]!), id: BigInt(l.topics[3]!).toString(), amount: '1' }]
    if (l.topics[0] === SINGLE) {
      const [id, value] = abi.decode(['uint256', 'uint256'], l.data)
      return [{ ...base, position: 0, type: 'ERC-1155', from: topicAddress(l.topics[2]!), to: topicAddress(l.topics[3]!), id: id.toString(), amount: value.toString() }]
    }
    const [ids, values] = abi.decode(['uint256[]', 'uint256[]'], l.data) as unknown as [bigint[], bigint[]]
    return ids.map((id, i) => ({ ...base, position: i, type: 'ERC-1155', from: topicAddress(l.topics[2]!), to: topicAddress(l.topics[3]!), id: id.toString(), amount: values[i]!.toString() }))
  })
}
const expected = await nodeTransfers()
// Each transferring transaction's method as its detail gives it (the decoded
// function's name, else the selector): a transfer shows its transaction's.
const methods = new Map<string, string | null>()
const detailTransfers = new Map<string, Array<{ method: string | null }>>()
for (const hash of new Set(expected.map((e) => e.hash))) {
  const detail = (await get(`/api/v2/transactions/${hash}`)).json()
  methods.set(hash, detail.method)
  detailTransfers.set(hash, detail.token_transfers)
}
const newestFirst = (a: Expected, b: Expected) => b.block - a.block || b.logIndex - a.logIndex || b.position - a.position
const expectedKey = (e: Expected) => `${e.hash}:${e.logIndex}:${e.id ?? ''}`
const key = (i: { transaction_hash: string, log_index: number, total: { token_id?: string } }) => `${i.transaction_hash}:${i.log_index}:${i.total.token_id ?? ''}`

function checkValues (t: { equal (a: unknown, b: unknown, m: string): unknown }, items: any[]): void {
  const byKey = new Map(expected.map((e) => [expectedKey(e), e]))
  for (const item of items) {
    const e = byKey.get(key(item))!
    const k = key(item)
    t.equal(item.token.address_hash, e.token, k)
    t.equal(item.token_type, e.type, k)
    t.equal(item.from.hash, e.from, k)
    t.equal(item.to.hash, e.to, k)
    t.equal(item.block_number, e.block, k)
    t.equal(item.method, methods.get(e.hash), k)
    if (e.type !== 'ERC-721') t.equal(item.total.value, e.amount, k)
    t.equal(item.type, e.from === getAddress('0x' + '00'.repeat(20)) ? 'token_minting' : 'token_transfer', k)
  }
}

t.test('a transfer\'s method is its transaction\'s as the detail names it, not the selector where the input decodes', async (t) => {
  const named = [...methods.values()].filter((m) => m !== null && !m.startsWith('0x'))
  t.ok(named.includes('transfer'), 'an ERC-20 transfer call decodes to transfer')
  const { items } = await walkPages(t, get, '/api/v2/token-transfers', { key })
  const byTransaction = new Map(items.map((i: { transaction_hash: string, method: string | null }) => [i.transaction_hash, i.method]))
  for (const [hash, method] of methods) {
    t.equal(byTransaction.get(hash), method, hash)
    for (const shown of detailTransfers.get(hash)!) t.equal(shown.method, method, `the detail's own token_transfers: ${hash}`)
  }
})

t.test('GET /api/v2/token-transfers walks every transfer of the node once, newest first, batches item by item', async (t) => {
  const { items, pages } = await walkPages(t, get, '/api/v2/token-transfers', { key, cursorKeys: ['block_number', 'index'], check: specCheck(t, '/v2/token-transfers') })
  t.same(items.map(key), [...expected].sort(newestFirst).map(expectedKey))
  checkValues(t, items)
  t.ok(pages.every((p) => p.next_page_params === null || !('items_count' in p.next_page_params)), 'no items_count in a token-transfer cursor')
  for (const [filter, types] of [['ERC-1155', ['ERC-1155']], ['[erc-20,ERC-721]', ['ERC-20', 'ERC-721']], ['', ['ERC-20', 'ERC-721', 'ERC-1155']]] as const) {
    const typed = await walkPages(t, get, '/api/v2/token-transfers', { key, resend: { type: filter }, check: specCheck(t, '/v2/token-transfers') })
    t.same(typed.items.map(key), expected.filter((e) => (types as readonly string[]).includes(e.type)).sort(newestFirst).map(expectedKey), `type=${filter}`)
  }
})

t.test('GET /api/v2/transactions/{hash}/token-transfers pages through a batch of more than a page', async (t) => {
  const { items, pages } = await walkPages(t, get, `/api/v2/transactions/${receipts.multiBatch.hash}/token-transfers`, {
    key, cursorKeys: ['block_number', 'index'], check: specCheck(t, '/v2/transactions/{transaction_hash_param}/token-transfers')
  })
  t.same(items.map((i: { total: { token_id: string } }) => i.total.token_id), Array.from({ length: MANY }, (_, i) => String(i + 1)), 'in batch order')
  t.same(items.map((i: { total: { value: string } }) => i.total.value), Array.from({ length: MANY }, (_, i) => String(i + 1)))
  t.match(pages[0].next_page_params, {
    block_number: receipts.multiBatch.blockNumber,
    batch_log_index: items[0].log_index,
    batch_block_hash: receipts.multiBatch.blockHash,
    batch_transaction_hash: receipts.multiBatch.hash,
    index_in_batch: 49
  }, 'the first page ends inside the batch')
  checkValues(t, items)
  const filtered = (await get(`/api/v2/transactions/${receipts.forward.hash}/token-transfers?type=ERC-721`)).json()
  t.same(filtered, { items: [], next_page_params: null }, 'type filters')
  const forward = (await get(`/api/v2/transactions/${receipts.forward.hash}/token-transfers?type=ERC-20`)).json()
  t.match(forward.items, [{ from: { hash: contracts.caller, is_contract: true }, to: { hash: bob.address }, total: { value: '10', decimals: '18' } }])
})

t.test('GET /api/v2/addresses/{hash}/token-transfers filters by side, type and token', async (t) => {
  const is = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()
  const cases: Array<[Record<string, string>, (e: Expected) => boolean]> = [
    [{}, (e) => is(e.from, bob.address) || is(e.to, bob.address)],
    [{ filter: 'to' }, (e) => is(e.to, bob.address)],
    [{ filter: 'from', type: 'ERC-1155' }, (e) => is(e.from, bob.address) && e.type === 'ERC-1155'],
    [{ type: 'ERC-20,ERC-721' }, (e) => (is(e.from, bob.address) || is(e.to, bob.address)) && e.type !== 'ERC-1155'],
    [{ token: contracts.multi.toLowerCase() }, (e) => (is(e.from, bob.address) || is(e.to, bob.address)) && is(e.token, contracts.multi)],
    [{ items_count: '50' }, (e) => is(e.from, bob.address) || is(e.to, bob.address)]
  ]
  for (const [resend, wanted] of cases) {
    const { items, pages } = await walkPages(t, get, `/api/v2/addresses/${bob.address}/token-transfers`, {
      key, resend, check: specCheck(t, '/v2/addresses/{address_hash_param}/token-transfers')
    })
    t.same(items.map(key), expected.filter(wanted).sort(newestFirst).map(expectedKey), JSON.stringify(resend))
    checkValues(t, items)
    const next = pages[0].next_page_params
    if (next !== null) {
      for (const echoed of ['filter', 'token', 'items_count'] as const) if (echoed in resend) t.equal(String(next[echoed]), resend[echoed], `${echoed} is echoed`)
      t.notOk('type' in next, 'type is not echoed')
      if (!('items_count' in resend)) t.notOk('items_count' in next, 'items_count only when sent')
    }
  }
  t.same((await get(`/api/v2/addresses/0x${'ab'.repeat(20)}/token-transfers`)).json(), { items: [], next_page_params: null })
})

t.test('GET /api/v2/tokens/{hash}/transfers walks the token\'s transfers', async (t) => {
  for (const token of [contracts.multi, contracts.nft, contracts.token]) {
    const { items } = await walkPages(t, get, `/api/v2/tokens/${token}/transfers`, { key, check: specCheck(t, '/v2/tokens/{address_hash_param}/transfers') })
    t.same(items.map(key), expected.filter((e) => e.token === token).sort(newestFirst).map(expectedKey), token)
    checkValues(t, items)
  }
  const notToken = await get(`/api/v2/tokens/${contracts.caller}/transfers`)
  t.equal(notToken.statusCode, 404)
  t.same(notToken.json(), { message: 'Not found' })
})

const balanceAt = async (address: string, block: number) => BigInt(await provider.getBalance(address, block))

t.test('GET /api/v2/transactions/{hash}/state-changes: coin balances before and after, from the node', async (t) => {
  for (const receipt of [receipts.coinTransfer, receipts.fan, receipts.selfdestruct, receipts.reverted]) {
    const block = await provider.getBlock(receipt.blockNumber)
    t.equal(block!.transactions.length, 1, 'alone in its block: the node\'s balances at the two blocks are the transaction\'s')
    const { items } = await walkPages(t, get, `/api/v2/transactions/${receipt.hash}/state-changes`, {
      key: (i) => `${i.type}:${i.address.hash}:${i.token?.address_hash}:${i.token_id}`,
      check: specCheck(t, '/v2/transactions/{transaction_hash_param}/state-changes')
    })
    // Geth pays the tip to the block's author: on clique the signer, not the header's miner (the zero address).
    const author = getAddress(await app.geth.rpc.call<string>('clique_getSigner', [block!.hash]))
    const coin = items.filter((i: { type: string }) => i.type === 'coin')
    t.equal(coin[0].address.hash, alice.address, 'the sender first')
    for (const item of coin) {
      const before = await balanceAt(item.address.hash, receipt.blockNumber - 1)
      const after = await balanceAt(item.address.hash, receipt.blockNumber)
      t.same([item.balance_before, item.balance_after, item.change], [before.toString(), after.toString(), (after - before).toString()], item.address.hash)
      t.equal(item.is_miner, item.address.hash === author, 'the signer, paid the tip, is the miner')
    }
    // Every address whose balance the node moved, and no other.
    const moved = new Set(coin.map((i: { address: { hash: string } }) => i.address.hash))
    t.ok(moved.has(author), 'the signer\'s tip is listed')
    for (const address of [alice.address, bob.address, block!.miner, author, contracts.fanout, ...chain.payees]) {
      const changed = await balanceAt(address, receipt.blockNumber - 1) !== await balanceAt(address, receipt.blockNumber)
      if (changed !== moved.has(getAddress(address))) t.fail(`${receipt.hash}: ${address} changed ${changed}, listed ${moved.has(getAddress(address))}`)
    }
  }
  const transfer = (await get(`/api/v2/transactions/${receipts.coinTransfer.hash}/state-changes`)).json()
  t.same(transfer.items.map((i: { address: { hash: string } }) => i.address.hash).slice(0, 2), [alice.address, bob.address], 'sender and recipient first')
  t.equal(BigInt(transfer.items[1].change), 10n ** 18n)
  const fan = await walkPages(t, get, `/api/v2/transactions/${receipts.fan.hash}/state-changes`, { key: (i) => i.address.hash, cursorKeys: ['items_count', 'state_changes'] })
  t.equal(fan.pages[0].next_page_params.items_count, 50, 'the running count')
  t.equal(fan.pages.length, 2, 'sixty payees, the sender, the contract and the coinbase: two pages')
})

t.test('GET /api/v2/transactions/{hash}/state-changes: token balances before and after, from the node', async (t) => {
  const erc20 = new Contract(contracts.token, ['function balanceOf(address) view returns (uint256)'], provider)
  const nft = new Contract(contracts.nft, ['function balanceOf(address) view returns (uint256)'], provider)
  const multi = new Contract(contracts.multi, ['function balanceOf(uint256, address) view returns (uint256)'], provider)
  const check = async (hash: string, block: number, read: (holder: string, id: string | null, blockTag: number) => Promise<bigint>) => {
    const { items } = await walkPages(t, get, `/api/v2/transactions/${hash}/state-changes`, {
      key: (i) => `${i.type}:${i.address.hash}:${i.token?.address_hash}:${i.token_id}`,
      cursorKeys: ['items_count', 'state_changes'],
      check: specCheck(t, '/v2/transactions/{transaction_hash_param}/state-changes')
    })
    const tokens = items.filter((i: { type: string }) => i.type === 'token')
    for (const item of tokens) {
      const before = await read(item.address.hash, item.token_id, block - 1)
      const after = await read(item.address.hash, item.token_id, block)
      t.same([item.balance_before, item.balance_after], [before.toString(), after.toString()], `${item.address.hash} ${item.token_id ?? ''}`)
    }
    return { items, tokens }
  }
  const fungible = await check(receipts.tokenTransfer.hash, receipts.tokenTransfer.blockNumber, async (h, _id, blockTag) => await erc20.getFunction('balanceOf')(h, { blockTag }))
  t.same(fungible.tokens.map((i: any) => [i.address.hash, i.change]), [[alice.address, '-12345'], [bob.address, '12345']])
  t.equal(fungible.tokens[0].token.symbol, 'ACT')

  const nfts = await check(receipts.nftTransfer.hash, receipts.nftTransfer.blockNumber, async (h, _id, blockTag) => await nft.getFunction('balanceOf')(h, { blockTag }))
  t.same(nfts.tokens.map((i: any) => [i.address.hash, i.change]), [
    [alice.address, [{ total: { token_id: '1', token_instance: null }, direction: 'from' }]],
    [bob.address, [{ total: { token_id: '1', token_instance: null }, direction: 'to' }]]
  ], 'an ERC-721 change lists the tokens moved')

  const batch = await check(receipts.multiBatch.hash, receipts.multiBatch.blockNumber, async (h, id, blockTag) => await multi.getFunction('balanceOf')(BigInt(id!), h, { blockTag }))
  t.equal(batch.tokens.length, 2 * MANY, 'each holder and id of the batch')
  t.ok(batch.items.length > 100, 'more than two pages')
})

t.test('bad input answers 422, a missing transaction or token 404', async (t) => {
  const missing = `0x${'cd'.repeat(32)}`
  const huge = '99999999999999999999999'
  await checkBadInput(t, get, {
    invalid: [
      ['/api/v2/transactions/0x12/token-transfers', '/transaction_hash_param'],
      ['/api/v2/transactions/0x12/state-changes', '/transaction_hash_param'],
      [`/api/v2/transactions/${receipts.multiBatch.hash}/token-transfers?type=ERC-99`, '/type'],
      [`/api/v2/transactions/${receipts.multiBatch.hash}/token-transfers?batch_block_hash=0x12`, '/batch_block_hash'],
      [`/api/v2/transactions/${receipts.multiBatch.hash}/state-changes?items_count=0`, '/items_count'],
      ['/api/v2/token-transfers?block_number=-1', '/block_number'],
      ['/api/v2/token-transfers?filter=to', '/filter'],
      ['/api/v2/token-transfers?index=1.5', '/index'],
      [`/api/v2/addresses/${bob.address}/token-transfers?token=0x12`, '/token'],
      [`/api/v2/addresses/${bob.address}/token-transfers?filter=both`, '/filter'],
      [`/api/v2/addresses/${bob.address}/token-transfers?items_count=51`, '/items_count'],
      ['/api/v2/tokens/0x12/transfers', '/address_hash_param']
    ],
    missing: [`/api/v2/transactions/${missing}/token-transfers`, `/api/v2/transactions/${missing}/state-changes`],
    harmless: [`/api/v2/token-transfers?block_number=${huge}&index=-${huge}&batch_log_index=${huge}&index_in_batch=-5`,
      `/api/v2/transactions/${receipts.multiBatch.hash}/token-transfers?block_number=0&index=${huge}`,
      `/api/v2/transactions/${receipts.multiBatch.hash}/state-changes?items_count=${huge}`,
      `/api/v2/tokens/${contracts.multi}/transfers?block_number=${huge}`]
  })
  const tampered = (await get(`/api/v2/transactions/${receipts.multiBatch.hash}/token-transfers?block_number=${receipts.multiBatch.blockNumber}&index=0&batch_log_index=${huge}&index_in_batch=0`)).json()
  t.same(tampered, { items: [], next_page_params: null }, 'a batch cursor past the transaction\'s transfers reads an empty page')
})

// Last: it stops the node. What needs the node then answers 503 with a JSON body, never a 500.
t.test('state changes while the node is down answer 503 with a message', async (t) => {
  await app.geth.supervisor!.stop()
  const response = await get(`/api/v2/transactions/${receipts.multiBatch.hash}/state-changes`)
  t.equal(response.statusCode, 503)
  t.same(response.json(), { message: 'The node is unavailable' })
  t.equal((await get(`/api/v2/transactions/${receipts.multiBatch.hash}/token-transfers`)).statusCode, 200, 'what the index holds is still served')
})
