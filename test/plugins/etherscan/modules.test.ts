// The Etherscan-style logs, block, transaction and stats modules on a real
// chain with token transfers, internal calls and a reverted transaction:
// each answer compared with what the node holds (receipts' logs, block
// timestamps, the signer's balance, traces, the genesis dump and burnt fees).
import t from 'tap'
import { Wallet, id, zeroPadValue } from 'ethers'
import { buildActivityChain } from '../../support/activity-chain.ts'
import { readNodeChain } from '../../support/etherscan-node.ts'
import { apiGetter, notOk, nothingFound, ok } from '../../support/etherscan-api.ts'

const chain = await buildActivityChain(t)
const { app, head, receipts, contracts } = chain
const rpc = app.geth.rpc
const node = await readNodeChain(rpc, head)
const [alice, bob] = chain.wallets.map((w) => w.address.toLowerCase()) as [string, string]
const hexBlock = (n: number) => '0x' + n.toString(16)
const get = apiGetter(t, app)

const TRANSFER = id('Transfer(address,address,uint256)')
const asTopic = (address: string) => zeroPadValue(address, 32).toLowerCase()
const LOG_FIELDS = ['address', 'topics', 'data', 'blockNumber', 'blockHash', 'timeStamp', 'gasPrice', 'gasUsed', 'logIndex', 'transactionHash', 'transactionIndex']

t.test('getLogs: the receipts\' logs by address, topics and block range, oldest first', async (t) => {
  const token = contracts.token.toLowerCase()
  const ofToken = node.logs.filter((l) => l.address === token)
  const found = (await get(`module=logs&action=getLogs&address=${token}`)).result
  t.same(found, ofToken, 'the token\'s logs')
  t.same(Object.keys(found[0]), LOG_FIELDS, 'Etherscan\'s field order')
  t.same((await get(`module=logs&action=getLogs&address=${token}&fromBlock=0&toBlock=latest&page=2&offset=1`)).result, ofToken.slice(1, 2), 'paged')
  const toBob = node.logs.filter((l) => l.topics[0] === TRANSFER && l.topics[2] === asTopic(bob))
  t.ok(toBob.length > 1 && new Set(toBob.map((l) => l.address)).size > 1, 'transfers to bob from two contracts')
  t.same((await get(`module=logs&action=getLogs&topic0=${TRANSFER}&topic2=${asTopic(bob)}&topic0_2_opr=and`)).result, toBob, 'topics only, and')
  t.same((await get(`module=logs&action=getLogs&address=${contracts.nft}&topic0=${TRANSFER}&topic2=${asTopic(bob)}`)).result,
    toBob.filter((l) => l.address === contracts.nft.toLowerCase()), 'address and topics; and by default')
  const either = node.logs.filter((l) => l.topics[1] === asTopic(bob) || l.topics[2] === asTopic(bob))
  t.same((await get(`module=logs&action=getLogs&topic1=${asTopic(bob)}&topic2=${asTopic(bob)}&topic1_2_opr=or`)).result, either, 'or')
  const [from, to] = [Number(receipts.tokenTransfer.blockNumber), Number(receipts.nftTransfer.blockNumber)]
  t.same((await get(`module=logs&action=getLogs&topic0=${TRANSFER}&fromBlock=${from}&toBlock=${to}`)).result,
    node.logs.filter((l) => l.topics[0] === TRANSFER && Number(l.blockNumber) >= from && Number(l.blockNumber) <= to), 'a block range')
  t.same(await get(`module=logs&action=getLogs&address=${Wallet.createRandom().address}`), nothingFound('No records found'))
  const many = node.logs.filter((l) => l.address === contracts.multi.toLowerCase())
  t.ok(many.length > 2, 'the ERC-1155 contract logged more than two')
  t.equal((await get(`module=logs&action=getLogs&address=${contracts.multi}&offset=5000`)).result.length, Math.min(many.length, 1000), 'at most 1000 a request')
})

t.test('getblocknumberbytime: the block sealed closest to a time, before or after it', async (t) => {
  const blocks = [await rpc.call<{ timestamp: string }>('eth_getBlockByNumber', ['0x0', false]), ...node.blocks].map((b, n) => ({ n, ts: Number(b.timestamp) }))
  const before = (ts: number) => blocks.filter((b) => b.ts <= ts).at(-1)?.n
  const after = (ts: number) => blocks.find((b) => b.ts >= ts)?.n
  const middle = blocks[Math.floor(head / 2)]!.ts
  for (const ts of [middle - 1, middle, middle + 1, blocks.at(-1)!.ts]) {
    t.same(await get(`module=block&action=getblocknumberbytime&timestamp=${ts}&closest=before`), ok(String(before(ts))), `before ${ts}`)
    t.same(await get(`module=block&action=getblocknumberbytime&timestamp=${ts}&closest=after`), ok(String(after(ts))), `after ${ts}`)
  }
  t.same(await get(`module=block&action=getblocknumberbytime&timestamp=${middle}`), ok(String(before(middle))), 'before by default')
  t.same(await get(`module=block&action=getblocknumberbytime&timestamp=${blocks.at(-1)!.ts + 1}&closest=after`), notOk('Error! No closest block found'))
  t.same(await get(`module=block&action=getblocknumberbytime&timestamp=${'9'.repeat(30)}`), ok(String(head)), 'a time past any: the newest block')
  t.same(await get('module=block&action=getblocknumberbytime&timestamp=-1'), notOk('Invalid timestamp'))
  t.same(await get('module=block&action=getblocknumberbytime&timestamp=1&closest=near'), notOk('Invalid closest, it must be before or after'))
  t.same(await get('module=block&action=getblocknumberbytime'), notOk('Query parameter \'timestamp\' is required'))
})

t.test('getblockreward: the clique signer and the tips it was paid', async (t) => {
  const n = Number(receipts.fan.blockNumber)
  const signer = (await rpc.call<string>('clique_getSigner', [hexBlock(n)])).toLowerCase()
  const balance = async (block: number) => BigInt(await rpc.call<string>('eth_getBalance', [signer, hexBlock(block)]))
  const earned = await balance(n) - await balance(n - 1)
  t.ok(earned > 0n, 'the signer earned the block\'s tips')
  t.ok(!node.transactions.some((tx) => tx.blockNumber === String(n) && tx.from === signer), 'and sent nothing in it')
  const block = node.blocks[n - 1]!
  t.same(await get(`module=block&action=getblockreward&blockno=${n}`), ok({
    blockNumber: String(n),
    timeStamp: String(Number(block.timestamp)),
    blockMiner: signer,
    blockReward: earned.toString(),
    uncles: [],
    uncleInclusionReward: '0'
  }))
  const genesis = await rpc.call<{ miner: string, timestamp: string }>('eth_getBlockByNumber', ['0x0', false])
  t.match(await get('module=block&action=getblockreward&blockno=0'), ok({ blockMiner: genesis.miner, blockReward: '0' }), 'the genesis block: its miner, no fees')
  t.same(await get(`module=block&action=getblockreward&blockno=${head + 1}`), notOk('Block does not exist'))
  t.same(await get(`module=block&action=getblockreward&blockno=${'9'.repeat(40)}`), notOk('Block does not exist'))
  t.same(await get('module=block&action=getblockreward&blockno=x'), notOk('Invalid block number'))
})

t.test('getstatus and gettxreceiptstatus: the receipt\'s status and the trace\'s error', async (t) => {
  const trace = await rpc.call<{ error?: string }>('debug_traceTransaction', [receipts.reverted.hash, { tracer: 'callTracer' }])
  t.ok(trace.error !== undefined, 'the node traced an error')
  t.same(await get(`module=transaction&action=getstatus&txhash=${receipts.reverted.hash}`), ok({ isError: '1', errDescription: trace.error }))
  t.same(await get(`module=transaction&action=gettxreceiptstatus&txhash=${receipts.reverted.hash}`), ok({ status: String(receipts.reverted.status) }))
  t.equal(receipts.reverted.status, 0)
  t.same(await get(`module=transaction&action=getstatus&txhash=${receipts.fan.hash}`), ok({ isError: '0', errDescription: '' }))
  t.same(await get(`module=transaction&action=gettxreceiptstatus&txhash=${receipts.fan.hash}`), ok({ status: String(receipts.fan.status) }))
  const unknown = '0x' + 'ab'.repeat(32)
  t.same(await get(`module=transaction&action=getstatus&txhash=${unknown}`), ok({ isError: '0', errDescription: '' }), 'not sealed: as a pending one')
  t.same(await get(`module=transaction&action=gettxreceiptstatus&txhash=${unknown}`), ok({ status: '' }))
  t.same(await get('module=transaction&action=getstatus&txhash=0x12'), notOk('Invalid txhash format'))
  t.same(await get('module=transaction&action=gettxreceiptstatus'), notOk('Query parameter \'txhash\' is required'))
})

t.test('ethsupply: the genesis allocation less the burnt base fees, which is every balance the node holds', async (t) => {
  const dump = await rpc.call<{ accounts: Record<string, { balance: string }> }>('debug_dumpBlock', ['0x0'])
  const allotted = Object.values(dump.accounts).reduce((sum, a) => sum + BigInt(a.balance), 0n)
  const burnt = node.blocks.reduce((sum, b) => sum + BigInt(b.baseFeePerGas ?? 0) * BigInt(b.gasUsed), 0n)
  t.ok(burnt > 0n, 'the chain burnt base fees')
  const answer = await get('module=stats&action=ethsupply')
  t.same(answer, ok((allotted - burnt).toString()))
  const { rows } = await app.db.knex.raw('select \'0x\' || encode(hash, \'hex\') as address from addresses')
  const balances = await Promise.all(rows.map(async (r: { address: string }) => BigInt(await rpc.call<string>('eth_getBalance', [r.address, hexBlock(head)]))))
  t.equal(answer.result, balances.reduce((sum, b) => sum + b, 0n).toString(), 'the sum of the node\'s balances of every address')
})

t.test('getLogs bad input: Etherscan\'s error, the reason as the result', async (t) => {
  const cases: Array<[string, string]> = [
    ['', 'Query parameter \'address\' or a topic is required'],
    ['&address=0x12', 'Error! Invalid address format'],
    ['&topic0=0x12', 'Invalid topic0 format'],
    [`&topic0=${TRANSFER}&topic1=${asTopic(alice)}&topic0_1_opr=xor`, 'Invalid topic0_1_opr, it must be and or or'],
    [`&address=${alice}&fromBlock=earliest`, 'Invalid fromBlock'],
    [`&address=${alice}&page=11&offset=1000`, 'Result window is too large, PageNo x Offset size must be less than or equal to 10000'],
    [`&address=${alice}&page=0`, 'Invalid page number']
  ]
  for (const [query, message] of cases) t.same(await get(`module=logs&action=getLogs${query}`), notOk(message), query)
})
