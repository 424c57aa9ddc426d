// REST address lists (top accounts, blocks validated, coin balance history,
// token balances, tokens, tab counters) on a real chain: values from the node,
// shapes from Blockscout's OpenAPI spec, every list walked to its end.
import t from 'tap'
import { Wallet, getAddress } from 'ethers'
import { OPENAPI_SPEC_PRESENT, checkSpec } from '../../support/openapi.ts'
import { walkList } from '../../support/rest.ts'
import { captureStatements } from '../../support/statements.ts'
import { buildIndexedTokenChain, TOKEN_COUNT } from '../../support/token-chain.ts'

const { app, wallets, chain, head } = await buildIndexedTokenChain(t)
const rpc = app.geth.rpc
const get = async (path: string) => await app.inject({ method: 'GET', url: path })
const hexBlock = (n: number) => '0x' + n.toString(16)
const balanceAt = async (address: string, block: number | 'latest') =>
  BigInt(await rpc.call<string>('eth_getBalance', [address, typeof block === 'number' ? hexBlock(block) : block]))
const call = async (to: string, data: string) => BigInt(await rpc.call<string>('eth_call', [{ to, data }, 'latest']))
const [holder0, holder1] = chain.holders as [Wallet, Wallet]
if (!OPENAPI_SPEC_PRESENT) t.comment('../shared/api is absent: responses are not checked against Blockscout\'s OpenAPI spec')

type TopAddress = { hash: string, coin_balance: string, transactions_count: string }

t.test('GET /api/v2/addresses walks every funded address once, by balance as Blockscout orders them', async (t) => {
  const { items, pages } = await walkList<TopAddress>(t, app, '/api/v2/addresses', '/v2/addresses')
  t.ok(items.length > 60, `more than a page (${items.length})`)
  t.same(Object.keys(pages[0]!.next_page_params!).sort(), ['fetched_coin_balance', 'hash', 'items_count', 'transactions_count'])
  t.equal(pages[0]!.next_page_params!.hash, (pages[0]!.next_page_params!.hash as string).toLowerCase(), 'the cursor hash is lowercase')
  t.same({ exchange_rate: (pages[0] as unknown as { exchange_rate: null }).exchange_rate }, { exchange_rate: null })
  t.equal(new Set(items.map((a) => a.hash)).size, items.length, 'nothing repeats')
  for (const w of wallets) t.ok(items.some((a) => a.hash === w.address), `${w.address} is listed (checksummed)`)
  for (let i = 1; i < items.length; i++) {
    const [a, b] = [BigInt(items[i - 1]!.coin_balance), BigInt(items[i]!.coin_balance)]
    t.ok(a > b || (a === b && items[i - 1]!.hash.toLowerCase() < items[i]!.hash.toLowerCase()), `order at ${i}`)
  }
  for (const a of items) t.equal(a.coin_balance, (await balanceAt(a.hash, 'latest')).toString(), `${a.hash} balance`)

  const ascending = await walkList<TopAddress>(t, app, '/api/v2/addresses', '/v2/addresses', { sort: 'balance', order: 'asc' })
  t.same(ascending.items.map((a) => a.hash).sort(), items.map((a) => a.hash).sort(), 'balance ascending: the same addresses')
  t.ok(ascending.items.every((a, i) => i === 0 || BigInt(ascending.items[i - 1]!.coin_balance) <= BigInt(a.coin_balance)), 'ascending')
  const byCount = await walkList<TopAddress>(t, app, '/api/v2/addresses', '/v2/addresses', { sort: 'transactions_count', order: 'desc' })
  t.same(byCount.items.map((a) => a.hash).sort(), items.map((a) => a.hash).sort(), 'by transaction count: the same addresses')
  t.ok(byCount.items.every((a, i) => i === 0 || Number(byCount.items[i - 1]!.transactions_count) >= Number(a.transactions_count)), 'descending counts')
  t.equal(byCount.items[0]!.hash, chain.deployer.address, 'the deployer sent the most')
})

t.test('GET /api/v2/addresses/{hash}/blocks-validated lists every block the clique signer sealed', async (t) => {
  const signer = await rpc.call<string>('clique_getSigner', [hexBlock(head)])
  const { items, pages } = await walkList<{ height: number, hash: string }>(t, app, `/api/v2/addresses/${signer}/blocks-validated`, '/v2/addresses/{address_hash_param}/blocks-validated')
  t.same(Object.keys(pages[0]!.next_page_params!).sort(), ['block_number', 'items_count'])
  t.same(items.map((b) => b.height), Array.from({ length: head }, (_, i) => head - i), 'blocks head..1, none missing or repeated')
  for (const n of [head, 1, Math.floor(head / 2)]) {
    const block = await rpc.call<{ hash: string }>('eth_getBlockByNumber', [hexBlock(n), false])
    t.equal(items.find((b) => b.height === n)!.hash, block.hash, `block ${n} hash`)
  }
  t.same((await get(`/api/v2/addresses/${holder0.address}/blocks-validated`)).json(), { items: [], next_page_params: null })
})

type CoinBalance = { block_number: number, value: string, delta: string, transaction_hash: string | null, block_timestamp: string }

t.test('GET /api/v2/addresses/{hash}/coin-balance-history has every balance change the node shows', async (t) => {
  for (const address of [holder0.address, chain.deployer.address]) {
    const { items } = await walkList<CoinBalance>(t, app, `/api/v2/addresses/${address}/coin-balance-history`, '/v2/addresses/{address_hash_param}/coin-balance-history')
    const changed: number[] = []
    let previous = 0n
    for (let n = 0; n <= head; n++) {
      const balance = await balanceAt(address, n)
      if (balance !== previous) changed.unshift(n)
      previous = balance
    }
    t.same(items.map((c) => c.block_number), changed, `${address}: every block that changed the balance, newest first`)
    t.ok(items.length > 50, 'more than a page')
    for (const c of items.slice(0, 5).concat(items.slice(-3))) {
      t.equal(c.value, (await balanceAt(address, c.block_number)).toString(), `value at ${c.block_number}`)
      const before = c.block_number === 0 ? 0n : await balanceAt(address, c.block_number - 1)
      t.equal(c.delta, (BigInt(c.value) - before).toString(), `delta at ${c.block_number}`)
      const block = await rpc.call<{ timestamp: string, transactions: string[] }>('eth_getBlockByNumber', [hexBlock(c.block_number), false])
      t.equal(Date.parse(c.block_timestamp) / 1000, Number(block.timestamp), 'block timestamp')
      if (c.block_number > 0) t.ok(c.transaction_hash !== null && block.transactions.includes(c.transaction_hash), 'a transaction of that block')
    }
  }
  const genesis = (await get(`/api/v2/addresses/${holder1.address}/coin-balance-history`)).json()
  t.match(genesis.items.at(-1), { block_number: 0, transaction_hash: null, value: (10n ** 24n).toString(), delta: (10n ** 24n).toString() }, 'the genesis allocation')
})

t.test('GET /api/v2/addresses/{hash}/coin-balance-history-by-day ends with today\'s balance', async (t) => {
  const body = (await get(`/api/v2/addresses/${holder0.address}/coin-balance-history-by-day`)).json()
  checkSpec(t, '/v2/addresses/{address_hash_param}/coin-balance-history-by-day', body)
  t.equal(body.days, 10)
  t.same(body.items.at(-1), { date: new Date().toISOString().slice(0, 10), value: (await balanceAt(holder0.address, 'latest')).toString() })
  t.same((await get(`/api/v2/addresses/${Wallet.createRandom().address}/coin-balance-history-by-day`)).json(), { items: [], days: 10 })
})

/** SQL statements `run` sends, through knex or prepared. */
async function countStatements (run: () => Promise<void>): Promise<number> {
  return (await captureStatements(run)).texts.length
}

type Holding = { token: { address_hash: string, type: string }, token_id: string | null, value: string, token_instance: { id: string } | null }

/** The holder's balance of the holding's token (ERC-721: the number of ids; ERC-1155: of the id) from the contract. */
async function onChainBalance (holder: string, h: Holding): Promise<bigint> {
  const token = h.token.address_hash
  if (h.token.type === 'ERC-1155') return await call(token, chain.abi.multi.encodeFunctionData('balanceOf', [h.token_id, holder]))
  return await call(token, chain.abi.token.encodeFunctionData('balanceOf', [holder]))
}

t.test('GET /api/v2/addresses/{hash}/token-balances equals the contracts\' balanceOf', async (t) => {
  const body = (await get(`/api/v2/addresses/${holder0.address}/token-balances`)).json() as Holding[]
  checkSpec(t, '/v2/addresses/{address_hash_param}/token-balances', body)
  const kinds = body.map((h) => `${h.token.address_hash}:${h.token_id}`).sort()
  t.same(kinds, [`${getAddress(chain.tokens[0]!)}:null`, `${getAddress(chain.tokens[1]!)}:null`, `${getAddress(chain.multi)}:7`, `${getAddress(chain.nft)}:null`].sort(),
    'ERC-20 and ERC-721 once per token, ERC-1155 per id')
  for (const h of body) t.equal(BigInt(h.value), await onChainBalance(holder0.address, h), `${h.token.type} ${h.token.address_hash}`)
  const nft = body.find((h) => h.token.type === 'ERC-721')!
  t.equal(nft.value, '26', 'the even ids 2..54 but the one sent on')
  t.ok(body.every((h) => h.token_instance === null))
  t.same((await get(`/api/v2/addresses/${Wallet.createRandom().address}/token-balances`)).json(), [])
})

t.test('GET /api/v2/addresses/{hash}/tokens walks every holding by value, type filters', async (t) => {
  const path = `/api/v2/addresses/${chain.deployer.address}/tokens`
  const spec = '/v2/addresses/{address_hash_param}/tokens'
  const { items, pages } = await walkList<Holding>(t, app, path, spec)
  t.same(Object.keys(pages[0]!.next_page_params!).sort(), ['fiat_value', 'id', 'items_count', 'value'])
  t.equal(items.length, TOKEN_COUNT + 1 + 2, 'every ERC-20, the NFT collection once, ERC-1155 ids 7 and 9 (8 went to zero)')
  t.equal(new Set(items.map((h) => `${h.token.address_hash}:${h.token_id}`)).size, items.length, 'nothing repeats')
  t.ok(items.every((h, i) => i === 0 || BigInt(items[i - 1]!.value) >= BigInt(h.value)), 'highest value first')
  for (const h of items) t.equal(BigInt(h.value), await onChainBalance(chain.deployer.address, h), `${h.token.address_hash} ${h.token_id}`)
  const multi = items.filter((h) => h.token.type === 'ERC-1155')
  t.same(multi.map((h) => h.token_instance?.id).sort(), multi.map((h) => h.token_id).sort(), 'ERC-1155 holdings carry their instance')
  // The page with the ERC-1155 holdings reads their instances in one statement, not one each.
  const withIds = pages.find((p) => p.items.some((h) => h.token_id !== null))!
  const previous = pages[pages.indexOf(withIds) - 1]
  const url = previous === undefined ? path : `${path}?${new URLSearchParams(previous.next_page_params as Record<string, string>)}`
  const statements = await countStatements(async () => {
    t.same((await get(url)).json().items, withIds.items, 'the same page again')
  })
  t.equal(statements, 2, 'the holdings, then the instances of all of them')
  const nfts = await walkList<Holding>(t, app, path, spec, { type: 'ERC-721' })
  t.same(nfts.items.map((h) => h.token.address_hash), [getAddress(chain.nft)])
  const mixed = await walkList<Holding>(t, app, path, spec, { type: '[ERC-721,ERC-1155]' })
  t.equal(mixed.items.length, 3)
})

t.test('GET /api/v2/addresses/{hash}/tabs-counters counts each tab, capped at 51', async (t) => {
  const deployer = (await get(`/api/v2/addresses/${chain.deployer.address}/tabs-counters`)).json()
  checkSpec(t, '/v2/addresses/{address_hash_param}/tabs-counters', deployer)
  t.same(deployer, {
    validations_count: 0,
    transactions_count: 51,
    token_transfers_count: 51,
    token_balances_count: 51,
    logs_count: 0,
    withdrawals_count: 0,
    // Each deployment's creation frame counts (Blockscout leaves out only a transaction's own call frame).
    internal_transactions_count: 51
  })
  const signer = await rpc.call<string>('clique_getSigner', [hexBlock(head)])
  t.equal((await get(`/api/v2/addresses/${signer}/tabs-counters`)).json().validations_count, 51)
  const nonce = Number(await rpc.call<string>('eth_getTransactionCount', [holder1.address, 'latest']))
  const holder = (await get(`/api/v2/addresses/${holder1.address}/tabs-counters`)).json()
  t.match(holder, { transactions_count: nonce, token_balances_count: 3, token_transfers_count: 3, internal_transactions_count: 0 },
    'holder 1: its own sends; token 0 twice (one from the Caller), ERC-1155 ids 7 and 8 in one batch')
  // The Caller: frames other than its transactions' own calls (token call, creation, payout) and what reached it.
  const traces = await Promise.all([...chain.callerTransactions, chain.revertedTransaction].map(async (hash) =>
    await rpc.call<Frame>('debug_traceTransaction', [hash, { tracer: 'callTracer' }])))
  const frames = traces.flatMap((root) => flatten(root).slice(1)).filter((f) => [f.from, f.to].some((a) => a?.toLowerCase() === chain.caller.toLowerCase()))
  const caller = (await get(`/api/v2/addresses/${chain.caller}/tabs-counters`)).json()
  t.equal(frames.length, 3, 'the token call, the creation of Child, the payout')
  t.match(caller, { internal_transactions_count: frames.length + 1, logs_count: 1, transactions_count: 6 },
    'its own creation frame too; creation, four calls and one revert as transactions')
  t.same((await get(`/api/v2/addresses/${Wallet.createRandom().address}/tabs-counters`)).json(), {
    validations_count: 0,
    transactions_count: 0,
    token_transfers_count: 0,
    token_balances_count: 0,
    logs_count: 0,
    withdrawals_count: 0,
    internal_transactions_count: 0,
    beacon_deposits_count: 0,
    celo_election_rewards_count: 0
  }, 'an unknown address: every counter at 0')
})

type Frame = { from: string, to?: string, calls?: Frame[] }
const flatten = (f: Frame): Frame[] => [f, ...(f.calls ?? []).flatMap(flatten)]

t.test('bad input answers 422 in Blockscout\'s shape, never 500', async (t) => {
  const bad = [
    '/api/v2/addresses/0x12/tabs-counters',
    '/api/v2/addresses/nothex/token-balances',
    `/api/v2/addresses/${holder0.address}/coin-balance-history?block_number=-1`,
    `/api/v2/addresses/${holder0.address}/coin-balance-history?block_number=99999999999999999999999`,
    `/api/v2/addresses/${holder0.address}/blocks-validated?block_number=abc`,
    `/api/v2/addresses/${holder0.address}/blocks-validated?items_count=51`,
    `/api/v2/addresses/${holder0.address}/tokens?value=abc&id=1`,
    `/api/v2/addresses/${holder0.address}/tokens?value=5&id=-1`,
    `/api/v2/addresses/${holder0.address}/tokens?type=ERC-99`,
    `/api/v2/addresses/${holder0.address}/token-balances?page=2`,
    '/api/v2/addresses?fetched_coin_balance=1e5&hash=0x0000000000000000000000000000000000000001',
    '/api/v2/addresses?hash=0x1234',
    '/api/v2/addresses?sort=name&order=asc',
    '/api/v2/addresses?unknown=1'
  ]
  for (const path of bad) {
    const response = await get(path)
    t.equal(response.statusCode, 422, path)
    t.match(response.json(), { errors: [{ title: 'Invalid value', source: { pointer: String }, detail: String }] }, path)
  }
  const unexpected = (await get(`/api/v2/addresses/${holder0.address}/coin-balance-history?foo=1`)).json()
  t.same(unexpected.errors[0], { title: 'Invalid value', source: { pointer: '/foo' }, detail: 'Unexpected field: foo' })
  // A cursor past everything: an empty last page.
  const past = (await get(`/api/v2/addresses/${holder0.address}/coin-balance-history?block_number=0&items_count=50`)).json()
  t.same(past, { items: [], next_page_params: null })
  const farValue = (await get(`/api/v2/addresses/${chain.deployer.address}/tokens?value=0&id=0&fiat_value=null`)).json()
  t.same(farValue, { items: [], next_page_params: null })
})
