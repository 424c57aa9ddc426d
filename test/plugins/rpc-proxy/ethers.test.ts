// rpc-proxy driven by ethers v6 against the gateway, as a user's script would.
import t from 'tap'
import { Contract, ContractFactory, JsonRpcProvider, Wallet, keccak256, AbiCoder, zeroPadValue, toBeHex, parseEther, id } from 'ethers'
import { build } from '../../helper.ts'
import { compileContract, TEST_TOKEN_SOURCE } from '../../support/contracts.ts'
import { waitForReceipt } from '../../support/chain.ts'

// A result cap of 1 lets the ERC-20's two Transfer logs show the cap.
const { url, chain } = await build(t, { RPC_MAX_LOG_RESULTS: '1' })
// cacheTimeout -1: ethers otherwise answers a repeated call from a 250 ms cache, and period-0 blocks come faster.
const provider = new JsonRpcProvider(`${url}/rpc`, 793788, { staticNetwork: true, cacheTimeout: -1 })
t.teardown(() => provider.destroy())
const sender = new Wallet(chain.account.privateKey, provider)
const recipient = Wallet.createRandom().address
const compiled = await compileContract(TEST_TOKEN_SOURCE, 'TestToken')
const SUPPLY = 1_000_000n * 10n ** 18n

t.test('eth_chainId and net_version report 793788', async (t) => {
  t.equal((await provider.getNetwork()).chainId, 793788n)
  t.equal(await provider.send('eth_chainId', []), '0xc1cbc')
  t.equal(await provider.send('net_version', []), '793788')
})

t.test('a signed transfer from a GENESIS_ALLOC account is mined with status 1', async (t) => {
  const before = await provider.getBalance(recipient)
  const tx = await sender.sendTransaction({ to: recipient, value: parseEther('1.5') })
  const receipt = await waitForReceipt(provider, tx.hash)
  t.equal(receipt.status, 1)
  const raw = await provider.send('eth_getTransactionReceipt', [tx.hash])
  t.equal(raw.status, '0x1')
  t.equal(await provider.getBalance(recipient), before + parseEther('1.5'))
  const fetched = await provider.getTransaction(tx.hash)
  t.equal(fetched?.from, sender.address)
})

t.test('an ERC-20 compiled for paris deploys, reads, estimates, logs and stores', async (t) => {
  const factory = new ContractFactory(compiled.abi as never, compiled.bytecode, sender)
  const token = await factory.deploy('Test Token', 'TT', SUPPLY)
  const deployment = await waitForReceipt(provider, token.deploymentTransaction()!.hash)
  const address = await token.getAddress()
  t.equal(deployment?.contractAddress, address, 'receipt carries contractAddress')
  t.not(await provider.getCode(address), '0x', 'eth_getCode returns the runtime code')

  const erc20 = new Contract(address, compiled.abi as never, sender)
  t.equal(await erc20.getFunction('balanceOf')(sender.address), SUPPLY, 'eth_call reads the balance')

  const estimate = await erc20.getFunction('transfer').estimateGas(recipient, 42n)
  t.ok(estimate > 21000n && estimate < 100000n, `eth_estimateGas gives ${estimate}`)

  const transfer = await erc20.getFunction('transfer')(recipient, 42n)
  const receipt = await waitForReceipt(provider, transfer.hash)
  t.equal(receipt.status, 1)

  const logs = await provider.getLogs({ address, fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber, topics: [id('Transfer(address,address,uint256)')] })
  t.equal(logs.length, 1, 'eth_getLogs finds the Transfer')
  t.equal(logs[0]!.transactionHash, transfer.hash)
  t.equal(BigInt(logs[0]!.data), 42n)

  const capped = await provider.send('eth_getLogs', [{ address, fromBlock: '0x0', toBlock: 'latest' }]).catch((err: { error?: unknown }) => err.error)
  t.match(capped, { code: -32005, message: 'Limit exceeded' }, 'more logs than RPC_MAX_LOG_RESULTS are refused')

  // balanceOf is mapping slot 0: the holder's entry sits at keccak256(pad(holder) . pad(0)).
  const slot = keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [recipient, 0]))
  t.equal(await provider.getStorage(address, slot), zeroPadValue(toBeHex(42n), 32), 'eth_getStorageAt reads the balance slot')
})

t.test('fee and block methods wallets call answer', async (t) => {
  const feeData = await provider.getFeeData()
  t.ok(feeData.maxFeePerGas !== null && feeData.maxFeePerGas > 0n)
  const history = await provider.send('eth_feeHistory', ['0x2', 'latest', [50]])
  t.ok(Array.isArray(history.baseFeePerGas))
  const head = await provider.getBlock('latest', true)
  t.ok(head !== null && head.number > 0)
  const byHash = await provider.send('eth_getBlockByHash', [head!.hash, false])
  t.equal(byHash.number, '0x' + head!.number.toString(16))
  const receipts = await provider.send('eth_getBlockReceipts', ['latest'])
  t.equal(receipts.length, head!.transactions.length)
  t.equal(await provider.send('eth_getBlockTransactionCountByNumber', ['latest']), '0x' + head!.transactions.length.toString(16))
  const first = await provider.send('eth_getTransactionByBlockNumberAndIndex', ['latest', '0x0'])
  t.equal(first.hash, head!.transactions[0])
  t.equal(await provider.send('eth_syncing', []), false)
  t.match(await provider.send('web3_clientVersion', []), /^Geth\/v1\.13\.15/)
})

t.test('block filters see new blocks', async (t) => {
  const filterId = await provider.send('eth_newBlockFilter', [])
  const tx = await sender.sendTransaction({ to: recipient, value: 1n })
  const receipt = await waitForReceipt(provider, tx.hash)
  const changes = await provider.send('eth_getFilterChanges', [filterId])
  t.ok(changes.includes(receipt!.blockHash), 'the new block hash is reported')
  t.equal(await provider.send('eth_uninstallFilter', [filterId]), true)
})
