// The Etherscan-style token, stats.tokensupply, account.balancehistory and
// gastracker actions on a real chain with tokens, tips and transfers: each
// answer compared with what the node holds (the tokens' own calls, balances
// at every block, receipts' tips, blocks' gas and times).
import t from 'tap'
import { Contract, Wallet } from 'ethers'
import { buildActivityChain } from '../../support/activity-chain.ts'
import { readNodeChain } from '../../support/etherscan-node.ts'
import { apiGetter, notOk, ok } from '../../support/etherscan-api.ts'
import { GAS_ORACLE_BLOCKS, GAS_ORACLE_PERCENTILES, PACE_BLOCKS, nextBaseFee } from '../../../core/stats/chain.ts'
import { toGwei } from '../../../plugins/etherscan/gastracker.ts'

const { app, head, contracts, provider, wallets } = await buildActivityChain(t)
const rpc = app.geth.rpc
const node = await readNodeChain(rpc, head)
const get = apiGetter(t, app)
const ERC20 = ['function totalSupply() view returns (uint256)', 'function name() view returns (string)', 'function symbol() view returns (string)',
  'function decimals() view returns (uint8)']

t.test('tokeninfo and tokensupply: the token\'s own name, symbol, decimals and supply', async (t) => {
  const token = new Contract(contracts.token, ERC20, provider)
  const supply = String(await token.getFunction('totalSupply')())
  t.same(await get(`module=stats&action=tokensupply&contractaddress=${contracts.token}`), ok(supply))
  const [info] = (await get(`module=token&action=tokeninfo&contractaddress=${contracts.token}`)).result
  t.match(info, {
    contractAddress: contracts.token.toLowerCase(),
    tokenName: await token.getFunction('name')(),
    symbol: await token.getFunction('symbol')(),
    divisor: String(await token.getFunction('decimals')()),
    tokenType: 'ERC20',
    totalSupply: supply,
    blueCheckmark: 'false',
    website: '',
    tokenPriceUSD: '0.000000000000000000'
  })
  t.same(Object.keys(info).slice(0, 7), ['contractAddress', 'tokenName', 'symbol', 'divisor', 'tokenType', 'totalSupply', 'blueCheckmark'], 'Etherscan\'s order')
  t.equal((await get(`module=token&action=tokeninfo&contractaddress=${contracts.nft}`)).result[0].tokenType, 'ERC721')
  t.equal((await get(`module=token&action=tokeninfo&contractaddress=${contracts.multi}`)).result[0].tokenType, 'ERC1155')
  const nobody = Wallet.createRandom().address
  t.same(await get(`module=token&action=tokeninfo&contractaddress=${nobody}`), notOk('Contract address not found'))
  t.same(await get(`module=stats&action=tokensupply&contractaddress=${nobody}`), notOk('Contract address not found'))
  t.same(await get('module=stats&action=tokensupply&contractaddress=0x12'), notOk('Invalid contractaddress format'))
  t.same(await get('module=token&action=tokeninfo'), notOk('Query parameter \'contractaddress\' is required'))
})

t.test('balancehistory: the balance as of every block, as the node has it', async (t) => {
  const [alice, bob] = wallets.map((w) => w.address.toLowerCase()) as [string, string]
  for (const address of [alice, bob]) {
    for (let n = 0; n <= head; n++) {
      const balance = BigInt(await rpc.call<string>('eth_getBalance', [address, '0x' + n.toString(16)])).toString()
      const answer = await app.inject({ method: 'GET', url: `/api?module=account&action=balancehistory&address=${address}&blockno=${n}` })
      if (answer.json().result !== balance) t.fail(`${address} at ${n}: ${answer.body}, the node ${balance}`)
    }
  }
  t.pass('alice and bob at every block')
  t.same(await get(`module=account&action=balancehistory&address=${Wallet.createRandom().address}&blockno=${head}`), ok('0'), 'never seen: 0')
  t.same(await get(`module=account&action=balancehistory&address=${bob}&blockno=${'9'.repeat(30)}`),
    ok(BigInt(await rpc.call<string>('eth_getBalance', [bob, 'latest'])).toString()), 'past the head: the newest')
  t.same(await get(`module=account&action=balancehistory&address=${bob}&blockno=x`), notOk('Invalid blockno'))
  t.same(await get(`module=account&action=balancehistory&address=${bob}`), notOk('Query parameter \'blockno\' is required'))
  t.same(await get('module=account&action=balancehistory&address=0x12&blockno=1'), notOk('Error! Invalid address format'))
})

const newest = node.blocks.at(-1)!
const nextBase = nextBaseFee(BigInt(newest.gasUsed), BigInt(newest.gasLimit), BigInt(newest.baseFeePerGas!))

t.test('gasoracle: the next base fee plus the tips paid in the newest blocks, in gwei', async (t) => {
  const tips = node.blocks.slice(-GAS_ORACLE_BLOCKS).flatMap((b) => b.transactions.map((tx) =>
    BigInt(node.receipts.get(tx.hash)!.effectiveGasPrice) - BigInt(b.baseFeePerGas!))).sort((a, b) => a < b ? -1 : a > b ? 1 : 0)
  t.ok(tips.length > 0, 'the newest blocks paid tips')
  const [slow, average, fast] = GAS_ORACLE_PERCENTILES.map((p) => tips[Math.max(0, Math.ceil(p * tips.length) - 1)]!)
  const ratios = node.blocks.slice(-5).map((b) => String(Number(b.gasUsed) / Number(b.gasLimit)))
  t.same(await get('module=gastracker&action=gasoracle'), ok({
    LastBlock: String(head),
    SafeGasPrice: toGwei(nextBase + slow!),
    ProposeGasPrice: toGwei(nextBase + average!),
    FastGasPrice: toGwei(nextBase + fast!),
    suggestBaseFee: toGwei(nextBase),
    gasUsedRatio: ratios.join(',')
  }))
})

t.test('gasestimate: one block at the pace of the newest for a price over the next base fee, more for less', async (t) => {
  const times = node.blocks.slice(-PACE_BLOCKS).map((b) => Number(b.timestamp))
  const blockTimeS = (times.at(-1)! - times[0]!) / (times.length - 1)
  t.same(await get(`module=gastracker&action=gasestimate&gasprice=${nextBase + 10n ** 9n}`), ok(String(Math.round(blockTimeS))))
  const lower = nextBase * 7n / 8n * 7n / 8n
  t.same(await get(`module=gastracker&action=gasestimate&gasprice=${lower}`), ok(String(Math.round(3 * blockTimeS))), 'two empty blocks to fall to it')
  t.same(await get('module=gastracker&action=gasestimate&gasprice=0'), notOk('Error! The gas price is below what the base fee can fall to'))
  t.same(await get('module=gastracker&action=gasestimate&gasprice=1gwei'), notOk('Invalid gasprice'))
})
