// Summaries and interpretations on a real chain: contracts compiled by solc,
// every kind of transaction the interpreter names sent to a real Geth,
// indexed into PostgreSQL, then read through the routes; a contract verified
// through the REST route, and a transaction still pending in the node.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { Interface, Signature, Wallet, getAddress, getCreateAddress, keccak256, parseEther } from 'ethers'
import { build } from '../../helper.ts'
import { sendRound, sign, writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { compileContract, TEST_TOKEN_SOURCE, type CompiledContract } from '../../support/contracts.ts'
import { checkSpec, OPENAPI_SPEC_PRESENT } from '../../support/openapi.ts'
import { checkBadInput } from '../../support/rest.ts'
import { BUNDLED_VERSION, readFixture, standardInput } from '../../support/verify.ts'
import { runTag } from '../../../scripts/ops/tag.ts'
import { CHAIN_ID } from '../../../core/config.ts'

const fixture = (name: string) => new URL(`../../fixtures/contracts/${name}.sol`, import.meta.url)
const { wallets, allocFile } = await writeFundedAlloc(t, 3)
const { app } = await build(t, { GENESIS_ALLOC: allocFile, COIN_SYMBOL: 'TEST' })
const rpc = app.geth.rpc
// Carol sends only the pending transaction: Alice's and Bob's lists stay as asserted.
const [alice, bob, carol] = wallets as [Wallet, Wallet, Wallet]
const get = async (path: string) => await app.inject({ method: 'GET', url: path })

const [erc20, nftCode, multiCode, wethCode, routerCode, callerCode, permitCode, operatorCode] = await Promise.all([
  compileContract(TEST_TOKEN_SOURCE, 'TestToken'), compileContract(fixture('TestNft'), 'TestNft'), compileContract(fixture('TestMulti'), 'TestMulti'),
  compileContract(fixture('TestWeth'), 'TestWeth'), compileContract(fixture('TinyRouter'), 'TinyRouter'), compileContract(fixture('Caller'), 'Caller'),
  compileContract(fixture('Approvals'), 'PermitToken'), compileContract(fixture('Approvals'), 'OperatorNft')
])
const abi = (c: CompiledContract) => new Interface(c.abi as never)
const [token, nft, multi, weth, router, caller, permitToken, operatorNft] = [erc20, nftCode, multiCode, wethCode, routerCode, callerCode, permitCode, operatorCode].map(abi) as
  [Interface, Interface, Interface, Interface, Interface, Interface, Interface, Interface]

let nonce = Number(await rpc.call<string>('eth_getTransactionCount', [alice.address, 'pending']))
const sent = new Map<string, string>()
async function send (name: string, tx: { to?: string, data?: string, value?: bigint, gasLimit?: bigint }): Promise<string> {
  const raw = await sign(alice, { gasLimit: 1_500_000n, nonce: nonce++, ...tx })
  sent.set(name, keccak256(raw))
  return raw
}
const deployed = (offset: number) => getCreateAddress({ from: alice.address, nonce: nonce + offset })
const addresses = {
  alpha: deployed(0), beta: deployed(1), nft: deployed(2), multi: deployed(3), weth: deployed(4), router: deployed(5), caller: deployed(6), permit: deployed(7), operatorNft: deployed(8)
}
const deploy = async (name: string, code: CompiledContract, args: unknown[] = []) => await send(name, { data: code.bytecode + abi(code).encodeDeploy(args).slice(2) })
await sendRound(rpc, [
  await deploy('deploy alpha', erc20, ['Alpha', 'ALP', parseEther('1000')]),
  await deploy('deploy beta', erc20, ['Beta', 'BET', parseEther('1000')]),
  await deploy('deploy nft', nftCode), await deploy('deploy multi', multiCode), await deploy('deploy weth', wethCode),
  await deploy('deploy router', routerCode), await deploy('deploy caller', callerCode),
  await deploy('deploy permit token', permitCode, [parseEther('1000')]), await deploy('deploy operator nft', operatorCode)
])
// EIP-2612: Alice signs the permit off-chain (her first permit, nonce 0); the call carries the signature.
const PERMIT_DEADLINE = 4_000_000_000n
const permitSignature = Signature.from(await alice.signTypedData(
  { name: 'Permit Token', version: '1', chainId: CHAIN_ID, verifyingContract: addresses.permit },
  { Permit: [{ name: 'owner', type: 'address' }, { name: 'spender', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }] },
  { owner: alice.address, spender: bob.address, value: parseEther('40'), nonce: 0n, deadline: PERMIT_DEADLINE }
))
const dropped = Array.from({ length: 5 }, () => Wallet.createRandom().address)
const call = async (name: string, to: string, data: string, value?: bigint) => await send(name, { to, data, value, gasLimit: 400_000n })
await sendRound(rpc, [
  await send('native', { to: bob.address, value: parseEther('1.5'), gasLimit: 21_000n }),
  await call('erc20 transfer', addresses.alpha, token.encodeFunctionData('transfer', [bob.address, parseEther('2.5')])),
  await call('approve', addresses.alpha, token.encodeFunctionData('approve', [addresses.router, parseEther('100')])),
  await call('fund router', addresses.beta, token.encodeFunctionData('transfer', [addresses.router, parseEther('500')])),
  await call('swap', addresses.router, router.encodeFunctionData('swapExactTokensForTokens', [parseEther('10'), 1n, [addresses.alpha, addresses.beta], alice.address, 2n ** 40n])),
  await call('airdrop', addresses.router, router.encodeFunctionData('airdrop', [addresses.alpha, dropped, parseEther('1')])),
  await call('wrap', addresses.weth, weth.encodeFunctionData('deposit'), parseEther('0.3')),
  await call('unwrap', addresses.weth, weth.encodeFunctionData('withdraw', [parseEther('0.1')])),
  await call('weth transfer', addresses.weth, weth.encodeFunctionData('transfer', [bob.address, parseEther('0.05')])),
  await call('mint nft', addresses.nft, nft.encodeFunctionData('mint', [alice.address, 1n])),
  await call('nft transfer', addresses.nft, nft.encodeFunctionData('transferFrom', [alice.address, bob.address, 1n])),
  await call('erc1155 mint', addresses.multi, multi.encodeFunctionData('mint', [alice.address, 7n, 50n])),
  await call('erc1155 batch', addresses.multi, multi.encodeFunctionData('safeBatchTransferFrom', [alice.address, bob.address, [7n], [20n], '0x'])),
  await call('erc1155 single', addresses.multi, multi.encodeFunctionData('safeTransferFrom', [alice.address, bob.address, 7n, 5n, '0x'])),
  await call('increase allowance', addresses.permit, permitToken.encodeFunctionData('increaseAllowance', [addresses.router, parseEther('25')])),
  await call('permit', addresses.permit, permitToken.encodeFunctionData('permit', [
    alice.address, bob.address, parseEther('40'), PERMIT_DEADLINE, permitSignature.v, permitSignature.r, permitSignature.s
  ])),
  await call('burn', addresses.permit, permitToken.encodeFunctionData('burn', [parseEther('3')])),
  await call('mint operator nft', addresses.operatorNft, operatorNft.encodeFunctionData('mint', [alice.address, 5n])),
  await call('approval for all', addresses.operatorNft, operatorNft.encodeFunctionData('setApprovalForAll', [addresses.router, true])),
  await call('unknown call', addresses.router, '0x12345678'),
  await call('inner failure', addresses.caller, caller.encodeFunctionData('tryFail')),
  // forward() is in no signature table; Caller holds no ALP, so it forwards none.
  await call('forward', addresses.caller, caller.encodeFunctionData('forward', [addresses.alpha, bob.address, 0n])),
  await call('failed', addresses.alpha, token.encodeFunctionData('transferFrom', [bob.address, alice.address, 1n]))
])
await waitForIndexed(app)

const hashOf = (name: string) => sent.get(name)!
const summariesOf = async (name: string) => {
  const response = await get(`/api/v2/transactions/${hashOf(name)}/summary`)
  t.equal(response.statusCode, 200, name)
  const body = response.json()
  if (body !== null) checkSpec(t, '/v2/transactions/{transaction_hash_param}/summary', body)
  return body
}
const account = (address: string) => ({ type: 'address', value: { hash: getAddress(address), name: null, is_contract: false, is_verified: false } })
const contract = (address: string, name: string | null) => ({ type: 'address', value: { hash: getAddress(address), name, is_contract: true, is_verified: false } })
const tokenVar = (address: string, name: string | null, symbol: string | null, type: string, decimals: string | null) =>
  ({ type: 'token', value: { address: getAddress(address), address_hash: getAddress(address), name, symbol, decimals, type, icon_url: null } })
const alpha = tokenVar(addresses.alpha, 'Alpha', 'ALP', 'ERC-20', '18')
const cached = async (name: string) => (await app.db.knex('transaction_interpretations').where('transaction_hash', Buffer.from(hashOf(name).slice(2), 'hex')).first()) !== undefined

if (!OPENAPI_SPEC_PRESENT) t.comment('../shared/api is absent: responses are not checked against Blockscout\'s OpenAPI spec')

t.test('GET /summary: native transfer, creation, ERC-20 transfer and approve, with every variable typed', async (t) => {
  t.same(await summariesOf('native'), {
    success: true,
    data: { summaries: [{ summary_template: 'Sent {amount} {native} to {to_address}', summary_template_variables: { amount: { type: 'currency', value: '1.5' }, to_address: account(bob.address) } }] }
  })
  t.same((await summariesOf('deploy alpha')).data.summaries, [
    { summary_template: 'Created contract {contract_address}', summary_template_variables: { contract_address: contract(addresses.alpha, 'Alpha') } },
    { summary_template: 'Minted {amount} {token} to {to_address}', summary_template_variables: { token: alpha, amount: { type: 'currency', value: '1000' }, to_address: account(alice.address) } }
  ])
  t.same((await summariesOf('erc20 transfer')).data.summaries, [{
    summary_template: 'Transferred {amount} {token} from {from_address} to {to_address}',
    summary_template_variables: { token: alpha, amount: { type: 'currency', value: '2.5' }, from_address: account(alice.address), to_address: account(bob.address) }
  }])
  t.same((await summariesOf('approve')).data.summaries, [{
    summary_template: 'Approved {spender_address} to spend {amount} {token}',
    summary_template_variables: { spender_address: contract(addresses.router, null), amount: { type: 'currency', value: '100' }, token: alpha }
  }])
})

t.test('GET /summary: swap, airdrop, wrap and unwrap, NFTs, ERC-1155, unknown call, inner failure', async (t) => {
  const beta = tokenVar(addresses.beta, 'Beta', 'BET', 'ERC-20', '18')
  t.same((await summariesOf('swap')).data.summaries, [{
    summary_template: 'Swapped {amount_in} {token_in} for {amount_out} {token_out}',
    summary_template_variables: { amount_in: { type: 'currency', value: '10' }, token_in: alpha, amount_out: { type: 'currency', value: '20' }, token_out: beta }
  }])
  const airdrop = (await summariesOf('airdrop')).data.summaries
  t.same(airdrop.map((s: { summary_template: string }) => s.summary_template), ['Called {method} on {to_address}', 'Transferred {amount} {token} in {transfer_count} transfers to {recipient_count} addresses'])
  t.same(airdrop[0].summary_template_variables.method, { type: 'method', value: router.getFunction('airdrop')!.selector }, 'not in the table: the selector')
  t.same(airdrop[1].summary_template_variables, {
    token: alpha, transfer_count: { type: 'string', value: '5' }, recipient_count: { type: 'string', value: '5' }, amount: { type: 'currency', value: '5' }
  }, 'five transfers, one line')
  const wtest = tokenVar(addresses.weth, 'Wrapped Test', 'WTEST', 'ERC-20', '18')
  t.same((await summariesOf('wrap')).data.summaries, [{ summary_template: 'Wrapped {amount} {native} into {token}', summary_template_variables: { amount: { type: 'currency', value: '0.3' }, token: wtest } }])
  t.same((await summariesOf('unwrap')).data.summaries, [{ summary_template: 'Unwrapped {amount} {token} into {native}', summary_template_variables: { amount: { type: 'currency', value: '0.1' }, token: wtest } }])
  const tnft = tokenVar(addresses.nft, 'Test NFT', 'TNFT', 'ERC-721', null)
  t.same((await summariesOf('mint nft')).data.summaries, [{ summary_template: 'Minted {token} #{token_id} to {to_address}', summary_template_variables: { token: tnft, token_id: { type: 'string', value: '1' }, to_address: account(alice.address) } }])
  t.same((await summariesOf('nft transfer')).data.summaries, [{
    summary_template: 'Transferred {token} #{token_id} from {from_address} to {to_address}',
    summary_template_variables: { token: tnft, token_id: { type: 'string', value: '1' }, from_address: account(alice.address), to_address: account(bob.address) }
  }])
  const items = (await summariesOf('erc1155 batch')).data.summaries
  t.same(items.map((s: { summary_template: string }) => s.summary_template), ['Transferred {amount} {token} #{token_id} from {from_address} to {to_address}'])
  t.same(items[0].summary_template_variables.amount, { type: 'currency', value: '20' })
  t.equal(items[0].summary_template_variables.token.value.type, 'ERC-1155')
  t.same((await summariesOf('unknown call')).data.summaries, [{
    summary_template: 'Called {method} on {to_address}', summary_template_variables: { method: { type: 'method', value: '0x12345678' }, to_address: contract(addresses.router, null) }
  }])
  const inner = (await summariesOf('inner failure')).data.summaries
  t.equal(inner.length, 2)
  t.same(inner[1], {
    summary_template: 'An internal call to {to_address} failed ({error}); the transaction succeeded',
    summary_template_variables: { error: { type: 'string', value: 'execution reverted' }, to_address: contract(addresses.caller, null) }
  })
  t.equal(await summariesOf('failed'), null, 'a failed transaction: 200 with null, as Blockscout')
})

t.test('GET /summary: increaseAllowance, permit, burn, setApprovalForAll and an ERC-1155 single transfer, with every variable typed', async (t) => {
  const pmt = tokenVar(addresses.permit, 'Permit Token', 'PMT', 'ERC-20', '18')
  t.same((await summariesOf('increase allowance')).data.summaries, [{
    summary_template: 'Increased the allowance of {spender_address} by {amount} {token}',
    summary_template_variables: { spender_address: contract(addresses.router, null), amount: { type: 'currency', value: '25' }, token: pmt }
  }])
  const allowance = await rpc.call<string>('eth_call', [{ to: addresses.permit, data: permitToken.encodeFunctionData('allowance', [alice.address, bob.address]) }, 'latest'])
  t.equal(BigInt(allowance), parseEther('40'), 'the signed permit was taken')
  t.same((await summariesOf('permit')).data.summaries, [{
    summary_template: 'Permitted {spender_address} to spend {amount} {token} of {owner_address} until {deadline}',
    summary_template_variables: {
      spender_address: account(bob.address), amount: { type: 'currency', value: '40' }, token: pmt, owner_address: account(alice.address), deadline: { type: 'timestamp', value: String(PERMIT_DEADLINE) }
    }
  }])
  t.same((await summariesOf('burn')).data.summaries, [{
    summary_template: 'Burned {amount} {token} from {from_address}',
    summary_template_variables: { token: pmt, amount: { type: 'currency', value: '3' }, from_address: account(alice.address) }
  }], 'burn() moves the tokens to the zero address: its transfer says it all')
  t.same((await summariesOf('approval for all')).data.summaries, [{
    summary_template: 'Approved {operator_address} to transfer all of {token}',
    summary_template_variables: { operator_address: contract(addresses.router, null), token: tokenVar(addresses.operatorNft, 'Operator NFT', 'ONFT', 'ERC-721', null) }
  }])
  t.same((await summariesOf('erc1155 single')).data.summaries, [{
    summary_template: 'Transferred {amount} {token} #{token_id} from {from_address} to {to_address}',
    summary_template_variables: {
      token: tokenVar(addresses.multi, null, null, 'ERC-1155', null),
      amount: { type: 'currency', value: '5' },
      token_id: { type: 'string', value: '7' },
      from_address: account(alice.address),
      to_address: account(bob.address)
    }
  }], 'TransferSingle: one line')
})

t.test('GET /summary and /interpretation answer 404 for an unknown transaction and 422 for a malformed hash', async (t) => {
  const unknown = '0x' + 'ab'.repeat(32)
  await checkBadInput(t, get, {
    invalid: [['/api/v2/transactions/0x12/summary', '/transaction_hash_param'], ['/api/v2/transactions/0xzz/interpretation', '/transaction_hash_param'],
      ['/api/v2/addresses/0x12/interpretations', '/address_hash_param']],
    missing: [`/api/v2/transactions/${unknown}/summary`, `/api/v2/transactions/${unknown}/interpretation`]
  })
})

t.test('GET /summary answers 200 null for a transaction pending in the node, its summary once sealed, and 404 for one the node does not know', async (t) => {
  const stranger = Wallet.createRandom().address
  const raw = await sign(carol, { to: stranger, value: parseEther('0.25'), gasLimit: 21_000n, nonce: 0 })
  const hash = keccak256(raw)
  await rpc.call('miner_stop', [])
  try {
    // miner_stop asks the miner's loop to stop: eth_mining can say true for a moment after it answers.
    const stoppedBy = Date.now() + 5000
    while (await rpc.call<boolean>('eth_mining', []) && Date.now() < stoppedBy) await sleep(20)
    await rpc.call('eth_sendRawTransaction', [raw])
    t.equal((await rpc.call<{ blockNumber: string | null }>('eth_getTransactionByHash', [hash])).blockNumber, null, 'pending in the node')
    const pending = await get(`/api/v2/transactions/${hash}/summary`)
    t.equal(pending.statusCode, 200)
    t.equal(pending.body, 'null', 'pending: null, as Blockscout')
    const unknown = await get(`/api/v2/transactions/${keccak256(hash)}/summary`)
    t.same([unknown.statusCode, unknown.json()], [404, { message: 'Not found' }], 'unknown to the node too')
    t.equal((await get(`/api/v2/transactions/${hash}/interpretation`)).statusCode, 404, 'the interpretation is of indexed transactions only')
  } finally {
    await rpc.call('miner_start', [])
  }
  const sealedBy = Date.now() + 30_000
  while (await rpc.call('eth_getTransactionReceipt', [hash]) === null && Date.now() < sealedBy) await sleep(50)
  await waitForIndexed(app)
  const sealed = await get(`/api/v2/transactions/${hash}/summary`)
  t.same(sealed.json().data.summaries, [{ summary_template: 'Sent {amount} {native} to {to_address}', summary_template_variables: { amount: { type: 'currency', value: '0.25' }, to_address: account(stranger) } }])
})

t.test('GET /interpretation: decoded input and logs equal ethers\' decoding; every address named', async (t) => {
  const body = (await get(`/api/v2/transactions/${hashOf('swap')}/interpretation`)).json()
  const input = router.encodeFunctionData('swapExactTokensForTokens', [parseEther('10'), 1n, [addresses.alpha, addresses.beta], alice.address, 2n ** 40n])
  const own = router.decodeFunctionData('swapExactTokensForTokens', input)
  t.same(body.decoded_input, {
    method_id: input.slice(2, 10),
    method_call: 'swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
    parameters: [
      { name: 'amountIn', type: 'uint256', value: own[0].toString() },
      { name: 'amountOutMin', type: 'uint256', value: own[1].toString() },
      { name: 'path', type: 'address[]', value: [...own[2]] },
      { name: 'to', type: 'address', value: own[3] },
      { name: 'deadline', type: 'uint256', value: own[4].toString() }
    ]
  })
  const receipt = await rpc.call<{ logs: Array<{ topics: string[], data: string, address: string }> }>('eth_getTransactionReceipt', [hashOf('swap')])
  t.equal(body.logs.length, receipt.logs.length)
  body.logs.forEach((l: { decoded: { parameters: Array<{ value: string }> } }, i: number) => {
    const parsed = token.parseLog(receipt.logs[i]!)!
    t.same(l.decoded.parameters.map((p) => p.value), [...parsed.args].map(String), `log ${i}`)
  })
  t.same(body.token_transfers.map((x: { token: { symbol: string }, amount: string }) => [x.token.symbol, x.amount]), [['ALP', parseEther('10').toString()], ['BET', parseEther('20').toString()]])
  t.same(new Set(body.addresses.map((a: { hash: string }) => a.hash)), new Set([alice.address, addresses.router, addresses.alpha, addresses.beta].map(getAddress)))
  t.same(body.summaries_text, ['Swapped 10 ALP for 20 BET'])
  t.same((await get(`/api/v2/transactions/${hashOf('wrap')}/interpretation`)).json().summaries_text, ['Wrapped 0.3 TEST into WTEST'], '{native} is COIN_SYMBOL')
  const inner = (await get(`/api/v2/transactions/${hashOf('inner failure')}/interpretation`)).json()
  t.match(inner.internal_calls, [{ index: 1, type: 'call', success: false, error: 'execution reverted', to: { hash: addresses.caller } }])
  const failed = (await get(`/api/v2/transactions/${hashOf('failed')}/interpretation`)).json()
  t.equal(failed.transaction.status, 'error')
  t.equal(failed.summaries, null)
})

t.test('a verification through the REST route names the contract in its creation\'s summary and drops the summaries cached before', async (t) => {
  const tryFail = caller.getFunction('tryFail')!.selector
  const creation = (address: unknown) => [{ summary_template: 'Created contract {contract_address}', summary_template_variables: { contract_address: address } }]
  const innerFailure = (method: string, to: unknown) => [
    { summary_template: 'Called {method} on {to_address}', summary_template_variables: { method: { type: 'method', value: method }, to_address: to } },
    { summary_template: 'An internal call to {to_address} failed ({error}); the transaction succeeded', summary_template_variables: { error: { type: 'string', value: 'execution reverted' }, to_address: to } }
  ]
  t.same((await summariesOf('deploy caller')).data.summaries, creation(contract(addresses.caller, null)))
  t.same((await summariesOf('inner failure')).data.summaries, innerFailure(tryFail, contract(addresses.caller, null)), 'tryFail() is in no signature table: its selector')
  t.ok(await cached('inner failure'), 'and cached')

  // The verification answers once its listeners, the interpreter's invalidation among them, are done: a slow one shows it.
  let listened = false
  t.teardown(app.verifier.subscribe(async () => { await sleep(200); listened = true }))
  const input = standardInput({ 'Caller.sol': await readFixture('Caller.sol') })
  const answer = await app.inject({
    method: 'POST', url: `/api/v2/smart-contracts/${addresses.caller}/verification/via/standard-input`, payload: { compiler_version: BUNDLED_VERSION, contract_name: 'Caller', input }
  })
  t.same([answer.statusCode, answer.json()], [200, { message: 'Smart-contract verification started' }])
  t.ok(listened, 'answered after the listeners')

  const verified = { type: 'address', value: { hash: getAddress(addresses.caller), name: 'Caller', is_contract: true, is_verified: true } }
  t.same((await summariesOf('deploy caller')).data.summaries, creation(verified), 'the creation names the verified contract')
  t.same((await summariesOf('inner failure')).data.summaries, innerFailure('tryFail', verified), 'the cached summary was dropped: the verified ABI decodes the call')
  const found = (await get(`/api/v2/transactions/${hashOf('inner failure')}/interpretation`)).json()
  t.same(found.decoded_input, { method_id: tryFail.slice(2), method_call: 'tryFail()', parameters: [] })
  t.same(found.summaries_text, ['Called tryFail on Caller', 'An internal call to Caller failed (execution reverted); the transaction succeeded'])
  // A verified contract's call with arguments says them, as decoded_input has them.
  const [forward] = (await summariesOf('forward')).data.summaries
  t.same(forward, {
    summary_template: 'Called {method} on {to_address} with {arguments}',
    summary_template_variables: {
      method: { type: 'method', value: 'forward' },
      to_address: verified,
      arguments: { type: 'string', value: `token: ${getAddress(addresses.alpha)}, to: ${getAddress(bob.address)}, value: 0` }
    }
  })
})

t.test('GET /addresses/{hash}/interpretations pages newest first, once each', async (t) => {
  const seen: string[] = []
  let query = ''
  for (;;) {
    const body = (await get(`/api/v2/addresses/${bob.address}/interpretations${query}`)).json()
    seen.push(...body.items.map((i: { transaction: { hash: string } }) => i.transaction.hash))
    if (body.next_page_params === null) break
    query = '?' + new URLSearchParams(body.next_page_params).toString()
  }
  // Bob received the coins and was sent the ERC-20 (as `to` only the coin transfer is his).
  t.same(seen, [hashOf('native')])
  const mine: string[] = []
  query = ''
  for (;;) {
    const body = (await get(`/api/v2/addresses/${alice.address}/interpretations${query}`)).json()
    mine.push(...body.items.map((i: { transaction: { hash: string } }) => i.transaction.hash))
    if (body.next_page_params === null) break
    t.equal(body.items.length, 20)
    query = '?' + new URLSearchParams(body.next_page_params).toString()
  }
  t.same(mine, [...sent.values()].reverse(), 'every transaction Alice sent, newest first')
})

t.test('GraphQL Transaction.summary answers the same summaries, null for a failed transaction', async (t) => {
  const gql = async (query: string) => (await app.inject({ method: 'POST', url: '/api/v2/graphql', payload: { query } })).json()
  const swap = await gql(`{ transaction(hash: "${hashOf('swap')}") { hash summary { summaryTemplate summaryTemplateVariables } } }`)
  const rest = (await summariesOf('swap')).data.summaries
  t.same(swap.data.transaction.summary.map((s: { summaryTemplate: string, summaryTemplateVariables: string }) => ({ summary_template: s.summaryTemplate, summary_template_variables: JSON.parse(s.summaryTemplateVariables) })), rest)
  const failed = await gql(`{ transaction(hash: "${hashOf('failed')}") { summary { summaryTemplate } } }`)
  t.same(failed, { data: { transaction: { summary: null } } })
})

t.test('summaries are cached in PostgreSQL; invalidateInterpretations forgets those naming an address; a reorg removes them', async (t) => {
  const db = app.db.knex
  t.ok(await cached('swap'), 'written when first asked')
  t.notOk(await cached('failed'), 'a failed transaction has none')
  // A stale row shows it is read back, not recomputed. The head-keyed HTTP cache answers in front of it:
  // emptied here, as a verification, a tag or a new head empties it.
  const readThrough = async (name: string) => { app.httpCache?.clear(); return await summariesOf(name) }
  await db.raw('update transaction_interpretations set summaries = ? where transaction_hash = ?', [JSON.stringify([{ summary_template: 'cached', summary_template_variables: {} }]), Buffer.from(hashOf('swap').slice(2), 'hex')])
  t.equal((await readThrough('swap')).data.summaries[0].summary_template, 'cached')
  // Alice's interpretations (the test above) cached all her transactions: three name Beta.
  t.equal(await app.interpreter.invalidate([addresses.beta.toLowerCase()]), 3, 'Beta\'s creation, the router\'s funding and the swap')
  t.equal((await readThrough('swap')).data.summaries[0].summary_template, 'Swapped {amount_in} {token_in} for {amount_out} {token_out}')
  await db.raw('update transaction_interpretations set summaries = \'[]\'')
  await app.interpreter.invalidateAll()
  t.equal((await readThrough('native')).data.summaries.length, 1, 'a new generation: every row stale')

  const block = Number((await rpc.call<{ blockNumber: string }>('eth_getTransactionReceipt', [hashOf('native')])).blockNumber)
  t.ok(await cached('native'))
  await rpc.call('debug_setHead', ['0x' + (block - 1).toString(16)])
  await waitForIndexed(app)
  t.notOk(await cached('native'), 'the reorg took the transaction and its summaries')
})

t.test('ops tag names an address that is neither verified nor a token, and forgets the summaries naming it', async (t) => {
  const before = (await summariesOf('deploy router')).data.summaries
  t.same(before[0].summary_template_variables.contract_address, contract(addresses.router, null))
  const lines: string[] = []
  t.equal(await runTag(app.db.knex, { address: addresses.router, tag: 'Tiny Router' }, (l) => lines.push(l)), 0)
  t.match(lines, [new RegExp(`^${getAddress(addresses.router)} tagged "Tiny Router"; [1-9]\\d* cached summar`)])
  // ops tag runs as a process of its own: this instance hears of it by a PostgreSQL notice, which empties its HTTP cache.
  const namedIn = async (name: string, want: unknown) => {
    const deadline = Date.now() + 5000
    for (;;) {
      const found = (await summariesOf(name)).data.summaries[0].summary_template_variables.contract_address
      if (JSON.stringify(found) === JSON.stringify(want) || Date.now() > deadline) return found
      await sleep(50)
    }
  }
  t.same(await namedIn('deploy router', contract(addresses.router, 'Tiny Router')), contract(addresses.router, 'Tiny Router'))
  // A token's own name comes first.
  await runTag(app.db.knex, { address: addresses.alpha, tag: 'Not Alpha' }, () => {})
  t.same((await summariesOf('deploy alpha')).data.summaries[0].summary_template_variables.contract_address, contract(addresses.alpha, 'Alpha'))
  await runTag(app.db.knex, { address: addresses.router, tag: undefined }, () => {})
  t.same(await namedIn('deploy router', contract(addresses.router, null)), contract(addresses.router, null), 'untagged')
})
