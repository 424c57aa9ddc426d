// The Etherscan-style account module on a real chain with coin transfers,
// contract creations, internal calls and ERC-20, ERC-721 and ERC-1155
// transfers: every list compared with what the node holds (blocks, receipts,
// callTracer frames, decoded logs), in Etherscan's field order, paged and
// sorted both ways; balances against eth_getBalance and balanceOf; txlist's
// functionName as the REST API decodes a call (nothing here is verified: by
// the bundled selector table, for calls to what holds code at the head).
import t from 'tap'
import { Contract, Interface, Wallet } from 'ethers'
import { buildActivityChain, MANY } from '../../support/activity-chain.ts'
import { restartSealing } from '../../support/blocks.ts'
import { waitForReceipt } from '../../support/chain.ts'
import { involves, readNodeChain, shaped, type NodeChain, type NodeTransaction } from '../../support/etherscan-node.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { decodeInput } from '../../../core/decode/decode.ts'
import { BUNDLED_TABLE } from '../../../core/decode/table.ts'

const chain = await buildActivityChain(t)
const { app, receipts, contracts } = chain
const rpc = app.geth.rpc
// A failed inner call under a successful transaction: Caller.tryFail() calls its own fail(), which reverts.
const tryFail = await new Contract(contracts.caller, ['function tryFail()'], chain.wallets[0]).getFunction('tryFail')({ gasLimit: 200_000 })
const failedInner = await waitForReceipt(chain.provider, tryFail.hash, undefined, async () => await restartSealing(rpc))
const head = await waitForIndexed(app)
const node: NodeChain = await readNodeChain(rpc, head)
const [alice, bob] = chain.wallets.map((w) => w.address.toLowerCase()) as [string, string]
const hasCode = new Map<string, boolean>()
for (const to of new Set(node.transactions.map((tx) => tx.to!).filter((to) => to !== ''))) {
  hasCode.set(to, await rpc.call<string>('eth_getCode', [to, '0x' + head.toString(16)]) !== '0x')
}
/** The transaction with the functionName txlist gives it: a call to a contract, named by the selector table. */
const named = (tx: NodeTransaction): NodeTransaction => ({ ...tx, functionName: hasCode.get(tx.to!) === true ? decodeInput(tx.input!, null)?.method_call ?? '' : '' })
const get = async (query: string) => {
  const response = await app.inject({ method: 'GET', url: `/api?module=account&${query}` })
  t.equal(response.statusCode, 200, query)
  return response.json()
}
const results = async (query: string) => {
  const body = await get(query)
  t.equal(body.status, '1', `${query}: ${body.message}`)
  return body.result
}

const TX_FIELDS = ['blockNumber', 'timeStamp', 'hash', 'nonce', 'blockHash', 'transactionIndex', 'from', 'to', 'value', 'gas', 'gasPrice', 'isError',
  'txreceipt_status', 'input', 'contractAddress', 'cumulativeGasUsed', 'gasUsed', 'confirmations', 'methodId', 'functionName']
const INTERNAL_FIELDS = ['blockNumber', 'timeStamp', 'hash', 'from', 'to', 'value', 'contractAddress', 'input', 'type', 'gas', 'gasUsed', 'traceId',
  'isError', 'errCode']
const INTERNAL_OF_TX_FIELDS = INTERNAL_FIELDS.filter((f) => f !== 'hash' && f !== 'traceId')
const TRANSFER_FIELDS = {
  'ERC-20': ['blockNumber', 'timeStamp', 'hash', 'nonce', 'blockHash', 'from', 'contractAddress', 'to', 'value', 'tokenName', 'tokenSymbol',
    'tokenDecimal', 'transactionIndex', 'gas', 'gasPrice', 'gasUsed', 'cumulativeGasUsed', 'input', 'confirmations'],
  'ERC-721': ['blockNumber', 'timeStamp', 'hash', 'nonce', 'blockHash', 'from', 'contractAddress', 'to', 'tokenID', 'tokenName', 'tokenSymbol',
    'tokenDecimal', 'transactionIndex', 'gas', 'gasPrice', 'gasUsed', 'cumulativeGasUsed', 'input', 'confirmations'],
  'ERC-1155': ['blockNumber', 'timeStamp', 'hash', 'nonce', 'blockHash', 'transactionIndex', 'gas', 'gasPrice', 'gasUsed', 'cumulativeGasUsed', 'input',
    'contractAddress', 'from', 'to', 'tokenID', 'tokenValue', 'tokenName', 'tokenSymbol', 'confirmations']
}

t.test('balance and balancemulti answer eth_getBalance at the indexed head', async (t) => {
  const stranger = Wallet.createRandom().address
  const addresses = [alice, bob, contracts.fanout.toLowerCase(), chain.payees[0]!, stranger]
  const balances = await Promise.all(addresses.map(async (a) => BigInt(await rpc.call<string>('eth_getBalance', [a, '0x' + head.toString(16)])).toString()))
  t.ok([0, 1, 3].every((i) => balances[i] !== '0'), 'funded addresses and a payee of an internal call')
  t.equal(balances[4], '0', 'a stranger has nothing')
  for (const [i, address] of addresses.entries()) {
    t.same(await get(`action=balance&address=${address}&tag=latest`), { status: '1', message: 'OK', result: balances[i] }, address)
  }
  t.same(await get(`action=balancemulti&address=${addresses.join(',')}`), {
    status: '1',
    message: 'OK',
    result: addresses.map((account, i) => ({ account, balance: balances[i] }))
  })
  t.same(await get(`action=balance&address=${bob.toUpperCase().replace('0X', '0x')}`), { status: '1', message: 'OK', result: balances[1] }, 'hex digits in either case')
})

t.test('txlist: an address\'s transactions (sent, received, created) as the node has them, paged and sorted', async (t) => {
  for (const address of [alice, bob, contracts.token.toLowerCase()]) {
    const expected = node.transactions.filter((tx) => tx.from === address || tx.to === address || tx.contractAddress === address).map(named).map(shaped(TX_FIELDS))
    const found = await results(`action=txlist&address=${address}`)
    t.same(found, expected, `${address}: every transaction, oldest first`)
    t.same(Object.keys(found[0]), TX_FIELDS, 'Etherscan\'s field order')
  }
  const mine = node.transactions.filter((tx) => tx.from === alice || tx.to === alice || tx.contractAddress === alice).map(named).map(shaped(TX_FIELDS))
  t.ok(mine.length > MANY, 'alice has more than a few pages')
  t.same(await results(`action=txlist&address=${alice}&sort=desc`), [...mine].reverse(), 'desc: newest first')
  t.same(await results(`action=txlist&address=${alice}&page=3&offset=7`), mine.slice(14, 21), 'page 3 of 7, oldest first')
  t.same(await results(`action=txlist&address=${alice}&page=2&offset=7&sort=desc`), [...mine].reverse().slice(7, 14), 'page 2 of 7, newest first')
  const [from, to] = [Number(mine[10]!.blockNumber), Number(mine[30]!.blockNumber)]
  t.same(await results(`action=txlist&address=${alice}&startblock=${from}&endblock=${to}`),
    mine.filter((tx) => Number(tx.blockNumber) >= from && Number(tx.blockNumber) <= to), 'startblock and endblock bound the blocks')
  const creation = (await results(`action=txlist&address=${contracts.token}`))[0]
  t.match(creation, { to: '', contractAddress: contracts.token.toLowerCase(), hash: receipts.tokenCreation.hash }, 'a creation: no to, the contract created')
  const reverted = mine.find((tx) => tx.hash === receipts.reverted.hash)!
  t.match(reverted, { isError: '1', txreceipt_status: '0' }, 'the reverted transaction')
  const coin = mine.find((tx) => tx.hash === receipts.coinTransfer.hash)!
  t.match(coin, { methodId: '0x', input: '0x', value: (10n ** 18n).toString(), functionName: '' }, 'a coin transfer has no method')
  t.same(await get(`action=txlist&address=${Wallet.createRandom().address}`), { status: '0', message: 'No transactions found', result: [] })
  t.same(await get(`action=txlist&address=${alice}&startblock=${head + 1}`), { status: '0', message: 'No transactions found', result: [] })
  t.same(await get(`action=txlist&address=${alice}&page=1000&offset=10`), { status: '0', message: 'No transactions found', result: [] }, 'a page past the end')
})

t.test('txlist names a call\'s function: an ERC-20 transfer by the bundled table, an unknown selector and a creation not', async (t) => {
  const ofToken = await results(`action=txlist&address=${contracts.token}`)
  t.match(ofToken.find((tx: { hash: string }) => tx.hash === receipts.tokenTransfer.hash), { methodId: '0xa9059cbb', functionName: 'transfer(address to, uint256 amount)' })
  t.match(ofToken.find((tx: { hash: string }) => tx.hash === receipts.tokenCreation.hash), { functionName: '' }, 'a creation')
  const fan = (await results(`action=txlist&address=${contracts.fanout}`)).find((tx: { hash: string }) => tx.hash === receipts.fan.hash)
  t.same(BUNDLED_TABLE.functions(fan.methodId), [], 'Fanout.fan is in no table')
  t.match(fan, { methodId: /^0x[0-9a-f]{8}$/, functionName: '' }, 'a selector nothing knows')
  t.ok(ofToken.filter((tx: { functionName: string }) => tx.functionName !== '').length > 1, 'every call of a page is named')
})

t.test('txlistinternal: by address, by transaction and by block range, as the node\'s call frames', async (t) => {
  const byAddress = (address: string) => node.frames.filter((f) => f.from === address || f.to === address || f.contractAddress === address)
  const fanout = contracts.fanout.toLowerCase()
  t.equal(byAddress(fanout).length, MANY + 1, 'its creation, and a payment to every payee')
  for (const address of [fanout, chain.payees[3]!.toLowerCase(), contracts.caller.toLowerCase(), bob]) {
    const found = await results(`action=txlistinternal&address=${address}`)
    t.same(found, byAddress(address).map(shaped(INTERNAL_FIELDS)), address)
  }
  t.same(Object.keys((await results(`action=txlistinternal&address=${fanout}`))[0]), INTERNAL_FIELDS, 'Etherscan\'s field order')
  const ofFan = node.frames.filter((f) => f.hash === receipts.fan.hash).map(shaped(INTERNAL_OF_TX_FIELDS))
  const found = await results(`action=txlistinternal&txhash=${receipts.fan.hash}`)
  t.same(found, ofFan, 'the fan-out\'s frames, no hash nor traceId')
  t.same(Object.keys(found[0]), INTERNAL_OF_TX_FIELDS)
  t.same(await results(`action=txlistinternal&txhash=${receipts.fan.hash}&page=2&offset=25&sort=desc`), [...ofFan].reverse().slice(25, 50), 'paged')
  const failed = await results(`action=txlistinternal&txhash=${failedInner!.hash}`)
  t.match(failed, [{ type: 'call', isError: '1', errCode: 'execution reverted' }], 'a failed inner call, as the node traced it')
  t.same(failed, node.frames.filter((f) => f.hash === failedInner!.hash).map(shaped(INTERNAL_OF_TX_FIELDS)))
  const spawn = await results(`action=txlistinternal&txhash=${receipts.spawn.hash}`)
  t.match(spawn, [{ type: 'create', to: '', contractAddress: /^0x[0-9a-f]{40}$/ }], 'an internal creation')
  const fanBlock = Number(receipts.fan.blockNumber)
  const inRange = node.frames.filter((f) => Number(f.blockNumber) >= fanBlock - 3 && Number(f.blockNumber) <= fanBlock).map(shaped(INTERNAL_FIELDS))
  t.same(await results(`action=txlistinternal&startblock=${fanBlock - 3}&endblock=${fanBlock}`), inRange, 'a block range')
  t.same(await results('action=txlistinternal&sort=desc&offset=5'), node.frames.map(shaped(INTERNAL_FIELDS)).reverse().slice(0, 5), 'the whole chain, newest first')
  t.same(await get(`action=txlistinternal&txhash=0x${'ab'.repeat(32)}`), { status: '0', message: 'No transactions found', result: [] })
})

t.test('tokentx, tokennfttx and token1155tx: the node\'s Transfer, TransferSingle and TransferBatch logs', async (t) => {
  const cases = [
    ['tokentx', 'ERC-20', contracts.token],
    ['tokennfttx', 'ERC-721', contracts.nft],
    ['token1155tx', 'ERC-1155', contracts.multi]
  ] as const
  for (const [action, standard, token] of cases) {
    const all = node.transfers.filter((x) => x.standard === standard)
    const fields = TRANSFER_FIELDS[standard]
    const ofBob = all.filter(involves(bob)).map(shaped(fields))
    t.ok(ofBob.length > 0, `${action}: bob has some`)
    const found = await results(`action=${action}&address=${bob}`)
    t.same(found, ofBob, `${action}: bob's`)
    t.same(Object.keys(found[0]), fields, `${action}: Etherscan's field order`)
    t.same(await results(`action=${action}&contractaddress=${token}`), all.filter((x) => x.contractAddress === token.toLowerCase()).map(shaped(fields)),
      `${action}: the token's`)
    t.same(await results(`action=${action}&contractaddress=${token}&address=${alice}&sort=desc`),
      all.filter((x) => x.contractAddress === token.toLowerCase()).filter(involves(alice)).map(shaped(fields)).reverse(), `${action}: alice's of the token, newest first`)
  }
  const batch = node.transfers.filter((x) => x.hash === receipts.multiBatch.hash)
  t.equal(batch.length, MANY, 'a batch is a row per id')
  t.same(await results(`action=token1155tx&address=${bob}&startblock=${receipts.multiBatch.blockNumber}&endblock=${receipts.multiBatch.blockNumber}&page=2&offset=20`),
    batch.map(shaped(TRANSFER_FIELDS['ERC-1155'])).slice(20, 40), 'paged inside one batch')
  t.same(await get(`action=tokennfttx&address=${chain.payees[0]}`), { status: '0', message: 'No transactions found', result: [] })
  t.same(await get(`action=tokentx&contractaddress=${contracts.nft}`), { status: '0', message: 'No transactions found', result: [] }, 'an NFT has no ERC-20 transfers')
})

t.test('tokenbalance answers balanceOf', async (t) => {
  const erc20 = new Interface(['function balanceOf(address) view returns (uint256)'])
  for (const holder of [alice, bob, contracts.caller, Wallet.createRandom().address]) {
    const data = await rpc.call<string>('eth_call', [{ to: contracts.token, data: erc20.encodeFunctionData('balanceOf', [holder]) }, 'latest'])
    t.same(await get(`action=tokenbalance&contractaddress=${contracts.token}&address=${holder}&tag=latest`),
      { status: '1', message: 'OK', result: BigInt(data).toString() }, holder)
  }
})

t.test('bad input: Etherscan\'s error (status 0, NOTOK, the reason as the result), never a 500', async (t) => {
  const window = 'Result window is too large, PageNo x Offset size must be less than or equal to 10000'
  const cases: Array<[string, string]> = [
    ['action=balance&address=0x12', 'Error! Invalid address format'],
    ['action=balance&address=nothex', 'Error! Invalid address format'],
    [`action=balance&address=0x${'zz'.repeat(20)}`, 'Error! Invalid address format'],
    ['action=balance', 'Query parameter \'address\' is required'],
    [`action=balance&address=${alice}&tag=earliest`, 'Invalid tag, only latest is supported'],
    [`action=balancemulti&address=${alice},0x12`, 'Error! Invalid address format'],
    [`action=balancemulti&address=${Array.from({ length: 21 }, () => alice).join(',')}`, 'Maximum of 20 addresses per request'],
    [`action=balancemulti&address=${Array.from({ length: 10_000 }, () => alice).join(',')}`, 'Maximum of 20 addresses per request'],
    [`action=txlist&address=${alice}&page=101&offset=100`, window],
    [`action=txlist&address=${alice}&page=1&offset=10001`, window],
    [`action=txlist&address=${alice}&page=${'9'.repeat(40)}&offset=${'9'.repeat(40)}`, window],
    [`action=txlist&address=${alice}&page=-1`, 'Invalid page number'],
    [`action=txlist&address=${alice}&page=0`, 'Invalid page number'],
    [`action=txlist&address=${alice}&offset=1.5`, 'Invalid offset number'],
    [`action=txlist&address=${alice}&sort=up`, 'Invalid sort order, it must be asc or desc'],
    [`action=txlist&address=${alice}&startblock=-3`, 'Invalid startblock'],
    [`action=txlist&address=${alice}&endblock=latest`, 'Invalid endblock'],
    ['action=txlistinternal&txhash=0x1234', 'Invalid txhash format'],
    ['action=tokentx', 'Query parameter \'address\' or \'contractaddress\' is required'],
    [`action=tokentx&contractaddress=0x12&address=${alice}`, 'Invalid contractaddress format'],
    [`action=tokenbalance&contractaddress=${contracts.token}`, 'Query parameter \'address\' is required'],
    [`action=tokenbalance&contractaddress=nope&address=${alice}`, 'Invalid contractaddress format']
  ]
  for (const [query, reason] of cases) {
    t.same(await get(query), { status: '0', message: 'NOTOK', result: reason }, query.slice(0, 120))
  }
  t.same(await get(`action=txlist&address=${alice}&startblock=${'9'.repeat(30)}`), { status: '0', message: 'No transactions found', result: [] },
    'a start past any block: nothing, no overflow')
  t.same(await get(`action=txlist&address=${alice}&endblock=${'9'.repeat(40)}&offset=3`), await get(`action=txlist&address=${alice}&offset=3`),
    'an end past any block: every block')
})
