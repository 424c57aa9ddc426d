// REST addresses endpoints on a real chain: values from the node, shapes from Blockscout's OpenAPI spec.
import t from 'tap'
import { Wallet } from 'ethers'
import { build } from '../../helper.ts'
import { sealBlocks, writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { OPENAPI_SPEC_PRESENT, checkSpec } from '../../support/openapi.ts'

const { wallets, allocFile } = await writeFundedAlloc(t, 2)
const { app } = await build(t, { GENESIS_ALLOC: allocFile })
// More than a page (50) of transactions from the busy wallet.
const sealed = await sealBlocks({ rpc: app.geth.rpc, wallets, rounds: 60 })
const head = await waitForIndexed(app)
const rpc = app.geth.rpc
const get = async (path: string) => await app.inject({ method: 'GET', url: path })
const busy = wallets[0]!.address
if (!OPENAPI_SPEC_PRESENT) t.comment('../shared/api is absent: responses are not checked against Blockscout\'s OpenAPI spec')

/** Every transaction of the node that names the address, newest first. */
async function nodeTransactionsOf (address: string, side: 'from' | 'to' | 'any'): Promise<string[]> {
  const hashes: string[] = []
  for (let n = head; n >= 1; n--) {
    const block = await rpc.call<{ transactions: Array<{ hash: string, from: string, to: string | null }> }>('eth_getBlockByNumber', ['0x' + n.toString(16), true])
    for (const tx of block.transactions.reverse()) {
      const isFrom = tx.from.toLowerCase() === address.toLowerCase()
      const isTo = tx.to?.toLowerCase() === address.toLowerCase()
      if (side === 'from' ? isFrom : side === 'to' ? isTo : isFrom || isTo) hashes.push(tx.hash)
    }
  }
  return hashes
}

t.test('GET /api/v2/addresses/{hash} carries the node\'s balance and the contract\'s creator', async (t) => {
  const body = (await get(`/api/v2/addresses/${busy.toLowerCase()}`)).json()
  checkSpec(t, '/v2/addresses/{address_hash_param}', body)
  t.equal(body.hash, busy, 'checksummed')
  t.equal(body.coin_balance, BigInt(await rpc.call<string>('eth_getBalance', [busy, 'latest'])).toString())
  t.equal(body.is_contract, false)
  const contract = (await get(`/api/v2/addresses/${sealed.logger}`)).json()
  checkSpec(t, '/v2/addresses/{address_hash_param}', contract)
  t.equal(contract.is_contract, true)
  t.equal(contract.creator_address_hash, wallets[0]!.address)
  t.equal(contract.creation_status, 'success')
  t.equal(contract.has_logs, true)
  const unknown = await get(`/api/v2/addresses/${Wallet.createRandom().address}`)
  t.equal(unknown.statusCode, 200, 'an unknown address is not a 404')
  checkSpec(t, '/v2/addresses/{address_hash_param}', unknown.json())
  t.equal(unknown.json().coin_balance, null)
})

t.test('GET /api/v2/addresses/{hash}/counters counts what the node holds', async (t) => {
  const body = (await get(`/api/v2/addresses/${busy}/counters`)).json()
  checkSpec(t, '/v2/addresses/{address_hash_param}/counters', body)
  t.equal(body.transactions_count, String((await nodeTransactionsOf(busy, 'any')).length))
  const signer = await rpc.call<string>('clique_getSigner', ['0x' + head.toString(16)])
  t.equal((await get(`/api/v2/addresses/${signer}/counters`)).json().validations_count, String(head), 'every block but the genesis')
  t.same((await get(`/api/v2/addresses/${Wallet.createRandom().address}/counters`)).json(),
    { transactions_count: '0', token_transfers_count: '0', gas_usage_count: '0', validations_count: '0' })
})

t.test('GET /api/v2/addresses/{hash}/transactions walks the address\'s transactions to the end', async (t) => {
  for (const filter of [undefined, 'from', 'to'] as const) {
    const seen: string[] = []
    let query = filter === undefined ? '' : `?filter=${filter}`
    for (;;) {
      const body = (await get(`/api/v2/addresses/${busy}/transactions${query}`)).json()
      checkSpec(t, '/v2/addresses/{address_hash_param}/transactions', body)
      seen.push(...body.items.map((tx: { hash: string }) => tx.hash))
      if (body.next_page_params === null) break
      query = '?' + new URLSearchParams(body.next_page_params).toString()
    }
    t.same(seen, await nodeTransactionsOf(busy, filter ?? 'any'), `filter ${filter ?? 'none'}: none missing or repeated`)
    if (filter !== 'to') t.ok(seen.length > 50, `more than one page (${seen.length})`)
  }
  t.same((await get(`/api/v2/addresses/${Wallet.createRandom().address}/transactions`)).json(), { items: [], next_page_params: null })
})

t.test('a malformed address answers 422', async (t) => {
  for (const path of ['/api/v2/addresses/0x123', '/api/v2/addresses/0x123/counters', '/api/v2/addresses/nothex/transactions']) {
    const response = await get(path)
    t.equal(response.statusCode, 422, path)
    t.same(response.json().errors[0], { title: 'Invalid value', source: { pointer: '/address_hash_param' }, detail: 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/' })
  }
  const response = await get(`/api/v2/addresses/${busy}/transactions?filter=sideways`)
  t.equal(response.statusCode, 422)
})
