// REST transactions endpoints on a real chain: values from the node, shapes from Blockscout's OpenAPI spec.
import t from 'tap'
import { Contract, ContractFactory, JsonRpcProvider, Wallet } from 'ethers'
import { build } from '../../helper.ts'
import { sealBlocks, writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { waitForReceipt } from '../../support/chain.ts'
import { compileContract, TEST_TOKEN_SOURCE } from '../../support/contracts.ts'
import { OPENAPI_SPEC_PRESENT, checkSpec } from '../../support/openapi.ts'

const { wallets, allocFile } = await writeFundedAlloc(t, 3)
const { app, url } = await build(t, { GENESIS_ALLOC: allocFile })
const provider = new JsonRpcProvider(`${url}/rpc`, 793788, { staticNetwork: true, cacheTimeout: -1 })
t.teardown(() => provider.destroy())
const deployer = wallets[2]!.connect(provider)
const compiled = await compileContract(TEST_TOKEN_SOURCE, 'TestToken')
const token = await new ContractFactory(compiled.abi as never, compiled.bytecode, deployer).deploy('Rest', 'RST', 10n ** 21n) as Contract
const creation = await waitForReceipt(provider, token.deploymentTransaction()!.hash)
const transfer = await waitForReceipt(provider, (await token.getFunction('transfer')(Wallet.createRandom().address, 5n)).hash)
const reverted = await waitForReceipt(provider, (await token.getFunction('transferFrom')(wallets[0]!.address, deployer.address, 1n, { gasLimit: 100_000 })).hash)
await sealBlocks({ rpc: app.geth.rpc, wallets: wallets.slice(0, 2), rounds: 30 })
const head = await waitForIndexed(app)
const rpc = app.geth.rpc
const get = async (path: string) => await app.inject({ method: 'GET', url: path })
if (!OPENAPI_SPEC_PRESENT) t.comment('../shared/api is absent: responses are not checked against Blockscout\'s OpenAPI spec')

t.test('GET /api/v2/transactions walks every transaction once, newest first', async (t) => {
  const seen: string[] = []
  let query = ''
  for (;;) {
    const body = (await get(`/api/v2/transactions${query}`)).json()
    checkSpec(t, '/v2/transactions', body)
    seen.push(...body.items.map((tx: { hash: string }) => tx.hash))
    if (body.next_page_params === null) break
    t.same(Object.keys(body.next_page_params).sort(), ['block_number', 'index', 'items_count'])
    query = '?' + new URLSearchParams(body.next_page_params).toString()
  }
  const expected: string[] = []
  for (let n = head; n >= 1; n--) {
    const block = await rpc.call<{ transactions: string[] }>('eth_getBlockByNumber', ['0x' + n.toString(16), false])
    expected.push(...block.transactions.reverse())
  }
  t.same(seen, expected, 'every transaction of the node, in order, once')
  t.same((await get('/api/v2/transactions?filter=pending')).json(), { items: [], next_page_params: null })
})

t.test('GET /api/v2/transactions/{hash} matches the node, with token transfers', async (t) => {
  const body = (await get(`/api/v2/transactions/${transfer.hash}`)).json()
  checkSpec(t, '/v2/transactions/{transaction_hash_param}', body)
  t.equal(body.status, 'ok')
  t.equal(body.result, 'success')
  t.equal(body.block_number, transfer.blockNumber)
  t.equal(body.gas_used, transfer.gasUsed.toString())
  t.equal(body.fee.value, (transfer.gasUsed * transfer.gasPrice).toString())
  t.equal(body.from.hash, deployer.address)
  t.equal(body.to.hash, await token.getAddress())
  t.equal(body.to.is_contract, true)
  t.equal(body.method, '0xa9059cbb')
  t.same(body.transaction_types, ['token_transfer', 'contract_call'])
  t.equal(body.token_transfers.length, 1)
  t.match(body.token_transfers[0], { type: 'token_transfer', token_type: 'ERC-20', total: { value: '5', decimals: '18' }, token: { symbol: 'RST', holders_count: '2' } })
  t.equal(body.token_transfers_overflow, false)
  t.equal(body.confirmations, head - transfer.blockNumber + 1)

  const created = (await get(`/api/v2/transactions/${creation.hash}`)).json()
  checkSpec(t, '/v2/transactions/{transaction_hash_param}', created)
  t.equal(created.to, null, 'a contract creation has no to')
  t.equal(created.created_contract.hash, await token.getAddress())
  t.same(created.transaction_types, ['token_transfer', 'token_creation'])

  const failed = (await get(`/api/v2/transactions/${reverted.hash}`)).json()
  checkSpec(t, '/v2/transactions/{transaction_hash_param}', failed)
  t.equal(failed.status, 'error')
  t.equal(failed.result, 'Reverted')
  t.match(failed.revert_reason.raw, /^0x08c379a0/, 'the Error(string) payload')
})

t.test('GET /api/v2/main-page/transactions answers the 6 newest', async (t) => {
  const body = (await get('/api/v2/main-page/transactions')).json()
  checkSpec(t, '/v2/main-page/transactions', body)
  t.equal(body.length, 6)
  t.equal(body[0].block_number, head)
})

t.test('bad input answers 422, an unknown transaction 404', async (t) => {
  const cases: Array<[string, string]> = [['/api/v2/transactions/0x12', '/transaction_hash_param'], ['/api/v2/transactions?method=transfer', '/method'],
    ['/api/v2/transactions?filter=all', '/filter'], ['/api/v2/transactions?type=coin_transfer', '/type'], ['/api/v2/transactions?index=-1', '/index']]
  for (const [path, pointer] of cases) {
    const response = await get(path)
    t.equal(response.statusCode, 422, path)
    t.equal(response.json().errors[0].source.pointer, pointer, path)
  }
  const missing = await get(`/api/v2/transactions/0x${'cd'.repeat(32)}`)
  t.equal(missing.statusCode, 404)
  t.same(missing.json(), { message: 'Not found' })
})
