// REST transactions endpoints on a real chain: values from the node, shapes from Blockscout's OpenAPI spec.
import t from 'tap'
import { Contract, ContractFactory, Interface, JsonRpcProvider, Wallet, getAddress, id } from 'ethers'
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
// One of each kind the members depend on: a legacy (type 0) payment, bytes
// sent to an account without code, value sent to a function that takes none
// (a reverted contract call that is a coin transfer too), and a successful
// transaction with a failed inner call.
const stranger = Wallet.createRandom().address
const sent = async (request: Parameters<typeof deployer.sendTransaction>[0]) => await waitForReceipt(provider, (await deployer.sendTransaction(request)).hash)
await sent({ type: 0, to: stranger, value: 7n })
await sent({ to: stranger, data: '0x12345678' })
await sent({ to: await token.getAddress(), data: token.interface.encodeFunctionData('transfer', [stranger, 1n]), value: 3n, gasLimit: 100_000 })
const caller = await new ContractFactory(...await callerArtifacts(), deployer).deploy() as Contract
await caller.waitForDeployment()
const survived = await waitForReceipt(provider, (await caller.getFunction('tryFail')({ gasLimit: 200_000 })).hash)
await sealBlocks({ rpc: app.geth.rpc, wallets: wallets.slice(0, 2), rounds: 30 })
const head = await waitForIndexed(app)
const rpc = app.geth.rpc
const get = async (path: string) => await app.inject({ method: 'GET', url: path })
async function callerArtifacts (): Promise<[never, string]> {
  const compiled = await compileContract(new URL('../../fixtures/contracts/Caller.sol', import.meta.url), 'Caller')
  return [compiled.abi as never, compiled.bytecode]
}

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

const TRANSFER_TOPIC = id('Transfer(address,address,uint256)')
// The selector table's fragments for the calls this chain makes (core/decode/signatures.json).
const TABLE = new Interface(['function transfer(address to, uint256 amount)', 'function transferFrom(address from, address to, uint256 amount)'])

/** Blockscout's decoded_input by ethers' own decoding: a call to code whose selector the table knows. */
function expectedDecoding (input: string, hasCode: boolean) {
  const fragment = hasCode && input.length >= 10 ? TABLE.getFunction(input.slice(0, 10)) : null
  if (fragment === null) return null
  const args = TABLE.decodeFunctionData(fragment, input)
  return {
    method_id: input.slice(2, 10),
    method_call: `${fragment.name}(${fragment.inputs.map((p) => `${p.type} ${p.name}`).join(', ')})`,
    parameters: fragment.inputs.map((p, i) => ({ name: p.name, type: p.type, value: String(args[i]) }))
  }
}
type NodeTransaction = { hash: string, blockNumber: string, transactionIndex: string, from: string, to: string | null, value: string, gas: string, type: string, nonce: string, input: string, maxFeePerGas?: string, maxPriorityFeePerGas?: string }
type NodeReceipt = { status: string, gasUsed: string, effectiveGasPrice: string, contractAddress: string | null, logs: Array<{ topics: string[] }> }

t.test('every member of every listed transaction matches the node', async (t) => {
  const items: Array<Record<string, unknown> & { hash: string }> = []
  for (let query = ''; ;) {
    const body = (await get(`/api/v2/transactions${query}`)).json()
    items.push(...body.items)
    if (body.next_page_params === null) break
    query = '?' + new URLSearchParams(body.next_page_params).toString()
  }
  // Blockscout's answer for a transaction it did not see pending: [0, the average block time of the newest 100 blocks but genesis].
  const newest: number[] = []
  for (let n = Math.max(1, head - 99); n <= head; n++) newest.push(Number((await rpc.call<{ timestamp: string }>('eth_getBlockByNumber', ['0x' + n.toString(16), false])).timestamp))
  const confirmationDuration = [0, Math.round((newest.at(-1)! - newest[0]!) * 1000 / (newest.length - 1))]
  const kinds = new Set<string>()
  for (const item of items) {
    const tx = await rpc.call<NodeTransaction>('eth_getTransactionByHash', [item.hash])
    const receipt = await rpc.call<NodeReceipt>('eth_getTransactionReceipt', [item.hash])
    const block = await rpc.call<{ timestamp: string, baseFeePerGas: string }>('eth_getBlockByNumber', [tx.blockNumber, false])
    const base = BigInt(block.baseFeePerGas)
    const price = BigInt(receipt.effectiveGasPrice)
    const used = BigInt(receipt.gasUsed)
    const callee = tx.to ?? receipt.contractAddress!
    const hasCode = await rpc.call<string>('eth_getCode', [callee, 'latest']) !== '0x'
    // Blockscout's rules for the types, from the node's side.
    const types: string[] = []
    if (receipt.logs.some((l) => l.topics[0] === TRANSFER_TOPIC)) types.push('token_transfer')
    if (tx.to === null) types.push(getAddress(callee) === await token.getAddress() ? 'token_creation' : 'contract_creation')
    else if (hasCode && tx.input !== '0x') types.push('contract_call')
    if (BigInt(tx.value) > 0n || types.length === 0) types.push('coin_transfer')
    kinds.add(types.join('+'))
    const ok = receipt.status === '0x1'
    t.same({ ...item, from: (item.from as { hash: string }).hash, to: (item.to as { hash: string } | null)?.hash ?? null, created_contract: (item.created_contract as { hash: string } | null)?.hash ?? null, revert_reason: item.revert_reason === null ? null : 'object' }, {
      hash: tx.hash,
      result: ok ? 'success' : 'Reverted',
      status: ok ? 'ok' : 'error',
      block_number: Number(tx.blockNumber),
      timestamp: new Date(Number(block.timestamp) * 1000).toISOString().replace('Z', '000Z'),
      confirmations: head - Number(tx.blockNumber) + 1,
      confirmation_duration: confirmationDuration,
      from: getAddress(tx.from),
      to: tx.to === null ? null : getAddress(tx.to),
      created_contract: tx.to === null ? getAddress(callee) : null,
      value: BigInt(tx.value).toString(),
      fee: { type: 'actual', value: (used * price).toString() },
      gas_price: price.toString(),
      gas_used: used.toString(),
      gas_limit: BigInt(tx.gas).toString(),
      max_fee_per_gas: tx.maxFeePerGas === undefined ? null : BigInt(tx.maxFeePerGas).toString(),
      max_priority_fee_per_gas: tx.maxPriorityFeePerGas === undefined ? null : BigInt(tx.maxPriorityFeePerGas).toString(),
      base_fee_per_gas: base.toString(),
      priority_fee: ((price - base) * used).toString(),
      transaction_burnt_fee: (base * used).toString(),
      type: Number(tx.type),
      nonce: Number(tx.nonce),
      position: Number(tx.transactionIndex),
      raw_input: tx.input,
      decoded_input: tx.to === null ? null : expectedDecoding(tx.input, hasCode),
      method: tx.to !== null && expectedDecoding(tx.input, hasCode) !== null ? expectedDecoding(tx.input, hasCode)!.method_call.split('(')[0] : tx.input.length >= 10 ? tx.input.slice(0, 10) : null,
      revert_reason: ok ? null : 'object',
      token_transfers: null,
      token_transfers_overflow: null,
      transaction_types: types,
      transaction_tag: null,
      exchange_rate: null,
      historic_exchange_rate: null,
      has_error_in_internal_transactions: item.hash === survived.hash,
      authorization_list: [],
      is_pending_update: false,
      fhe_operations_count: 0
    }, item.hash)
    t.equal((item.to as { is_contract: boolean } | null)?.is_contract ?? hasCode, hasCode, `${item.hash}: the callee's is_contract`)
  }
  t.same([...kinds].sort(), ['coin_transfer', 'contract_call', 'contract_call+coin_transfer', 'contract_creation', 'token_transfer+contract_call', 'token_transfer+token_creation'],
    'the chain has every combination of types the rules make here')
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
  t.equal(body.method, 'transfer', 'the decoded name, as Blockscout')
  t.same(body.decoded_input, {
    method_id: 'a9059cbb',
    method_call: 'transfer(address to, uint256 amount)',
    parameters: [{ name: 'to', type: 'address', value: body.token_transfers[0].to.hash }, { name: 'amount', type: 'uint256', value: '5' }]
  }, 'decoded by the selector table: nothing is verified')
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
