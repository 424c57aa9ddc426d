// The proxy module driven by ethers v6's EtherscanProvider, as a user's
// script would point it at the gateway: deploy, transfer, read and estimate
// through /api alone, each answer compared with the node's (POST /rpc).
// Then the JSON-RPC shapes it answers, its errors and the endpoint's own
// parameter checks, which show the call went through the gateway's handler.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { ContractFactory, EtherscanProvider, JsonRpcProvider, Network, Wallet, isError, keccak256, AbiCoder, Contract, parseEther } from 'ethers'
import { build } from '../../helper.ts'
import { compileContract, TEST_TOKEN_SOURCE } from '../../support/contracts.ts'
import { waitForReceipt } from '../../support/chain.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { createApiKey } from '../../../core/api-keys/store.ts'
import { CHAIN_ID } from '../../../core/config.ts'

/**
 * ethers' EtherscanProvider at the gateway: it writes Etherscan's own URL
 * (getUrl, getPostUrl) and takes only Etherscan's chains, so the URL's base
 * and the network are the gateway's here, as docs/etherscan-api.md shows users.
 */
class GatewayEtherscanProvider extends EtherscanProvider {
  readonly #base: string
  readonly #network = new Network('testnet-gateway', CHAIN_ID)
  constructor (base: string, apiKey: string) {
    super('sepolia', apiKey)
    this.#base = base
  }

  override getUrl (module: string, params: Record<string, string>): string {
    return super.getUrl(module, params).replace('https://api.etherscan.io/v2/api', `${this.#base}/api`)
  }

  override getPostUrl (): string {
    return super.getPostUrl().replace('https://api.etherscan.io/v2/api', `${this.#base}/api`)
  }

  override async getNetwork (): Promise<Network> { return this.#network }
  override async _detectNetwork (): Promise<Network> { return this.#network }
}

const { app, url, chain } = await build(t)
const { key } = await createApiKey(app.db.knex, { label: 'etherscan-proxy', tier: 'public' })
const etherscan = new GatewayEtherscanProvider(url, key)
t.teardown(() => etherscan.destroy())
const node = new JsonRpcProvider(`${url}/rpc`, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1 })
t.teardown(() => node.destroy())
const sender = new Wallet(chain.account.privateKey, etherscan)
const recipient = Wallet.createRandom().address
const compiled = await compileContract(TEST_TOKEN_SOURCE, 'TestToken')
const SUPPLY = 10n ** 24n
/** ethers' AbstractProvider keeps a request's answer this long (its cacheTimeout default). */
const ETHERS_CACHE_MS = 250

const get = async (query: string) => {
  const response = await app.inject({ method: 'GET', url: `/api?module=proxy&${query}` })
  return { status: response.statusCode, type: response.headers['content-type'], json: response.json() }
}

// Deployed and used through the EtherscanProvider alone: nonce, fees, estimate and broadcast all go through /api.
const token = await new ContractFactory(compiled.abi as never, compiled.bytecode, sender).deploy('Proxy Token', 'PXT', SUPPLY) as Contract
const deployment = await waitForReceipt(etherscan, token.deploymentTransaction()!.hash)
const address = (await token.getAddress()).toLowerCase()
// EtherscanProvider answers a repeated request from its own 250 ms cache (no option turns it off): a period-0 chain
// seals the deployment sooner, and the transfer's nonce would be the deployment's pending count again.
await sleep(ETHERS_CACHE_MS + 50)
const transfer = await sender.sendTransaction({ to: recipient, value: parseEther('2') })
const transferReceipt = await waitForReceipt(etherscan, transfer.hash)
await waitForIndexed(app)

t.test('EtherscanProvider: blocks, balances, nonces, code and storage as the node has them', async (t) => {
  t.equal(await etherscan.getBlockNumber(), await node.getBlockNumber())
  t.equal(await etherscan.getBalance(recipient), parseEther('2'), 'getBalance (module=account)')
  t.equal(await etherscan.getTransactionCount(sender.address), 2)
  t.equal(await etherscan.getTransactionCount(sender.address, 'pending'), await node.getTransactionCount(sender.address, 'pending'))
  t.equal(await etherscan.getCode(address), await node.getCode(address))
  t.ok((await etherscan.getCode(address)).length > 2, 'the token\'s code')
  const slot = keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [sender.address, 0]))
  t.equal(BigInt(await etherscan.getStorage(address, slot)), SUPPLY, 'balanceOf[sender] in slot keccak(sender . 0)')
})

t.test('EtherscanProvider: calls, estimates, a revert and fees', async (t) => {
  const read = new Contract(address, compiled.abi as never, etherscan)
  t.equal(await read.getFunction('balanceOf')(sender.address), SUPPLY, 'call')
  t.equal(await read.getFunction('symbol')(), 'PXT')
  const data = read.interface.encodeFunctionData('transfer', [recipient, 5n])
  t.equal(await etherscan.estimateGas({ from: sender.address, to: address, data }), await node.estimateGas({ from: sender.address, to: address, data }))
  // A transfer of more than the caller holds reverts with "balance": ethers reads it from the JSON-RPC error's data.
  const over = read.interface.encodeFunctionData('transfer', [sender.address, 1n])
  await t.rejects(etherscan.call({ from: recipient, to: address, data: over }), { code: 'CALL_EXCEPTION', reason: 'balance' })
  await t.rejects(etherscan.estimateGas({ from: recipient, to: address, data: over }), { code: 'CALL_EXCEPTION', reason: 'balance' })
  const fees = await etherscan.getFeeData()
  t.equal(fees.gasPrice, await node.send('eth_gasPrice', []).then(BigInt), 'eth_gasPrice')
  t.ok(fees.maxFeePerGas !== null && fees.maxFeePerGas > 0n, 'the latest block\'s base fee')
})

t.test('EtherscanProvider: transactions, receipts and blocks', async (t) => {
  const sent = await etherscan.getTransaction(transfer.hash)
  t.equal(sent?.hash, transfer.hash)
  t.equal(sent?.to, recipient)
  t.equal(sent?.value, parseEther('2'))
  t.equal(transferReceipt.status, 1)
  t.equal(deployment.contractAddress?.toLowerCase(), address, 'the receipt names the contract')
  t.same((await etherscan.getTransactionReceipt(transfer.hash))?.toJSON(), (await node.getTransactionReceipt(transfer.hash))?.toJSON())
  const block = await etherscan.getBlock(transferReceipt.blockNumber, true)
  t.same(block?.toJSON(), (await node.getBlock(transferReceipt.blockNumber, true))?.toJSON(), 'getBlock with its transactions')
  t.same(block?.prefetchedTransactions.map((tx) => tx.hash), [transfer.hash])
  t.equal((await etherscan.getBlock('latest'))?.number, await node.getBlockNumber())
  t.equal(await etherscan.getTransaction('0x' + '00'.repeat(32)), null, 'an unknown hash: null')
})

t.test('EtherscanProvider: a broadcast the node refuses is ethers\' own error', async (t) => {
  const stale = await sender.signTransaction({ to: recipient, value: 1n, nonce: 0, gasLimit: 21_000, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, chainId: CHAIN_ID, type: 2 })
  const refused = await etherscan.broadcastTransaction(stale).then(() => undefined, (error: unknown) => error)
  t.ok(isError(refused, 'NONCE_EXPIRED'), 'nonce too low: NONCE_EXPIRED')
})

t.test('module=proxy answers JSON-RPC\'s object, as Etherscan does', async (t) => {
  const head = await node.getBlockNumber()
  const number = await get('action=eth_blockNumber')
  t.equal(number.status, 200)
  t.match(number.type, /^application\/json/)
  t.same(number.json, { jsonrpc: '2.0', id: 1, result: '0x' + head.toString(16) })
  const tag = '0x' + transferReceipt.blockNumber.toString(16)
  t.same((await get(`action=eth_getBlockTransactionCountByNumber&tag=${tag}`)).json.result, '0x1')
  t.equal((await get(`action=eth_getTransactionByBlockNumberAndIndex&tag=${tag}&index=0x0`)).json.result.hash, transfer.hash)
  t.same((await get(`action=eth_getUncleByBlockNumberAndIndex&tag=${tag}&index=0x0`)).json, { jsonrpc: '2.0', id: 1, result: null }, 'clique has no uncles')
  t.equal((await get(`action=eth_getBlockByNumber&tag=${tag}&boolean=false`)).json.result.transactions[0], transfer.hash, 'hashes with boolean=false')
  t.equal((await get(`action=eth_call&to=${address}&data=0x18160ddd`)).json.result, '0x' + SUPPLY.toString(16).padStart(64, '0'), 'totalSupply() by GET')
})

t.test('module=proxy answers from the JSON-RPC endpoint\'s kept answers', async (t) => {
  const cache = app.jsonRpcCache!
  t.ok(cache !== undefined, 'RPC_CACHE_ENABLED is on by default')
  const query = `action=eth_getBlockByNumber&tag=0x${transferReceipt.blockNumber.toString(16)}&boolean=true`
  const first = await get(query)
  const hits = cache.stats().hits
  t.same((await get(query)).json, first.json)
  t.equal(cache.stats().hits, hits + 1, 'the second ask is a kept answer')
})

t.test('module=proxy errors: JSON-RPC error objects from the gateway\'s own checks', async (t) => {
  const invalid = (data: RegExp) => ({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params', data } })
  t.match((await get('action=eth_getTransactionByHash&txhash=0x12')).json, invalid(/param 0 \(hash\): expected a 32-byte hex hash/))
  t.match((await get('action=eth_getTransactionByHash')).json, invalid(/txhash is required/))
  t.match((await get('action=eth_getBlockByNumber&tag=latest&boolean=yes')).json, invalid(/boolean: expected true or false/))
  // A slot longer than 32 bytes reaches Geth only through another client: the endpoint's handler refuses it first.
  t.match((await get(`action=eth_getStorageAt&address=${address}&position=0x${'1'.repeat(65)}`)).json, invalid(/param 1 \(slot\)/))
  t.match((await get('action=eth_call&to=0x12')).json, invalid(/param 0 \(transaction\): to/))
  t.match((await get('action=eth_sendRawTransaction&hex=0x1234')).json, { jsonrpc: '2.0', id: 1, error: { code: -32000 } }, 'what the node answers')
  // ethers without a key writes apikey=null into its POST bodies: an unknown key, as docs/etherscan-api.md warns.
  const keyless = await app.inject({ method: 'POST', url: '/api', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'module=proxy&action=eth_blockNumber&apikey=null' })
  t.equal(keyless.statusCode, 401)
  t.equal((await app.inject({ method: 'POST', url: '/api', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'module=proxy&action=eth_blockNumber' })).json().jsonrpc, '2.0', 'without apikey: served')
  const unknown = await get('action=eth_sign')
  t.equal(unknown.status, 200)
  t.same(unknown.json, { status: '0', message: 'NOTOK', result: 'Error! Missing Or invalid Action name' }, 'an action the module does not have')
})
