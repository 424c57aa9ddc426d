// summarize(): one test per template, on facts built by hand with inputs
// encoded by ethers and decoded by core/decode.
import t from 'tap'
import { Interface, MaxUint256, Wallet, getAddress, parseEther } from 'ethers'
import { decodeInput } from '../../../core/decode/index.ts'
import { renderSummary, summarize, type InterpretationFacts } from '../../../core/interpreter/index.ts'
import type { AddressParam, TokenFacts, TransferFacts } from '../../../core/interpreter/types.ts'
import { MAX_ARGUMENT_CHARS, argumentsText } from '../../../core/interpreter/calls.ts'

const ZERO = '0x0000000000000000000000000000000000000000'
const addr = () => Wallet.createRandom().address.toLowerCase()
const sender = addr()
const receiver = addr()
const router = addr()
const usdc: TokenFacts = { address: addr(), type: 'ERC-20', name: 'USD Coin', symbol: 'USDC', decimals: 6 }
const dai: TokenFacts = { address: addr(), type: 'ERC-20', name: 'Dai', symbol: 'DAI', decimals: 18 }
const nft: TokenFacts = { address: addr(), type: 'ERC-721', name: 'Kitties', symbol: 'KIT', decimals: null }
const multi: TokenFacts = { address: addr(), type: 'ERC-1155', name: 'Items', symbol: null, decimals: null }
const weth: TokenFacts = { address: addr(), type: 'ERC-20', name: 'Wrapped Ether', symbol: 'WETH', decimals: 18 }
const tokens = [usdc, dai, nft, multi, weth]

const erc20 = new Interface([
  'function transfer(address to, uint256 amount)', 'function approve(address spender, uint256 amount)',
  'function increaseAllowance(address spender, uint256 addedValue)', 'function decreaseAllowance(address spender, uint256 subtractedValue)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function setApprovalForAll(address operator, bool approved)', 'function deposit()', 'function withdraw(uint256 wad)',
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
  'function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline)',
  'function transferOwnership(address newOwner)', 'function renounceOwnership()'
])

function named (address: string, name: string | null, isContract: boolean): [string, AddressParam] {
  return [address, { hash: getAddress(address), name, is_contract: isContract, is_verified: false }]
}

function facts (over: { to?: string | null, input?: string, value?: bigint, transfers?: TransferFacts[], calls?: InterpretationFacts['internalCalls'], createdContract?: string | null, toIsContract?: boolean }): InterpretationFacts {
  const to = over.to === undefined ? usdc.address : over.to
  const input = over.input ?? '0x'
  return {
    transaction: {
      hash: '0x' + '11'.repeat(32),
      from: sender,
      to,
      createdContract: over.createdContract ?? null,
      value: String(over.value ?? 0n),
      status: 'ok',
      timestamp: 1_700_000_000,
      input,
      toIsContract: over.toIsContract ?? (to !== null && to !== receiver)
    },
    decodedInput: to === null ? null : decodeInput(input, null),
    tokenTransfers: over.transfers ?? [],
    logs: [],
    internalCalls: over.calls ?? [],
    addresses: new Map([named(sender, null, false), named(receiver, null, false), named(router, 'Router', true), ...tokens.map((k) => named(k.address, k.name, true))]),
    tokens: new Map(tokens.map((k) => [k.address, k])),
    coinSymbol: 'TEST'
  }
}

const transfer = (token: TokenFacts, from: string, to: string, amount: string | null, tokenId: string | null = null, logIndex = 0): TransferFacts => ({ token, from, to, amount, tokenId, logIndex })
const texts = (f: InterpretationFacts) => summarize(f).map((s) => renderSummary(s, 'TEST'))

t.test('a native transfer: amount in coins, {native}, the recipient as an address variable', async (t) => {
  const [line] = summarize(facts({ to: receiver, value: parseEther('1.5') }))
  t.same(line, {
    summary_template: 'Sent {amount} {native} to {to_address}',
    summary_template_variables: {
      amount: { type: 'currency', value: '1.5' },
      to_address: { type: 'address', value: { hash: getAddress(receiver), name: null, is_contract: false, is_verified: false } }
    }
  })
})

t.test('a contract creation names the contract and the tokens it minted', async (t) => {
  const created = usdc.address
  const lines = summarize(facts({ to: null, createdContract: created, transfers: [transfer(usdc, ZERO, sender, '5000000')] }))
  t.same(lines.map((l) => l.summary_template), ['Created contract {contract_address}', 'Minted {amount} {token} to {to_address}'])
  t.same(lines[0]!.summary_template_variables.contract_address, { type: 'address', value: { hash: getAddress(created), name: 'USD Coin', is_contract: true, is_verified: false } })
  t.same(lines[1]!.summary_template_variables.amount, { type: 'currency', value: '5' })
})

t.test('ERC-20, ERC-721 and ERC-1155 transfers, mint and burn', async (t) => {
  const input = erc20.encodeFunctionData('transfer', [receiver, 2_500_000n])
  const [line] = summarize(facts({ input, transfers: [transfer(usdc, sender, receiver, '2500000')] }))
  t.equal(line!.summary_template, 'Transferred {amount} {token} from {from_address} to {to_address}')
  t.same(line!.summary_template_variables.token, {
    type: 'token', value: { address: getAddress(usdc.address), address_hash: getAddress(usdc.address), name: 'USD Coin', symbol: 'USDC', decimals: '6', type: 'ERC-20', icon_url: null }
  })
  t.same(line!.summary_template_variables.amount, { type: 'currency', value: '2.5' })
  t.same(texts(facts({ to: nft.address, input: '0x23b872dd' + '00'.repeat(96), transfers: [transfer(nft, sender, receiver, null, '7')] })),
    [`Transferred KIT #7 from ${getAddress(sender)} to ${getAddress(receiver)}`])
  t.same(texts(facts({ to: multi.address, input: '0xf242432a' + '00'.repeat(160), transfers: [transfer(multi, sender, receiver, '3', '9')] })),
    [`Transferred 3 Items #9 from ${getAddress(sender)} to ${getAddress(receiver)}`])
  t.same(texts(facts({ to: multi.address, input: '0x2eb2c2d6', transfers: [transfer(multi, sender, receiver, '3', '9'), transfer(multi, sender, receiver, '4', '10', 0)] })),
    [
      'Called 0x2eb2c2d6 on Items',
      `Transferred 3 Items #9 from ${getAddress(sender)} to ${getAddress(receiver)}`,
      `Transferred 4 Items #10 from ${getAddress(sender)} to ${getAddress(receiver)}`
    ], 'a batch: a line per id (the input here does not decode, so the call is named by its selector)')
  t.same(texts(facts({ to: nft.address, input: '0x40c10f19' + '00'.repeat(64), transfers: [transfer(nft, ZERO, receiver, null, '1')] })), [`Minted KIT #1 to ${getAddress(receiver)}`])
  t.same(texts(facts({ to: usdc.address, input: '0x42966c68' + '00'.repeat(32), transfers: [transfer(usdc, sender, ZERO, '1000000')] })), [`Burned 1 USDC from ${getAddress(sender)}`])
})

t.test('approve, unlimited approve, revoke, increase and decrease allowance, setApprovalForAll, permit', async (t) => {
  const spender = router
  t.same(texts(facts({ input: erc20.encodeFunctionData('approve', [spender, 1_000_000n]) })), ['Approved Router to spend 1 USDC'])
  t.same(texts(facts({ input: erc20.encodeFunctionData('approve', [spender, MaxUint256]) })), ['Approved Router to spend unlimited USDC'])
  t.same(texts(facts({ input: erc20.encodeFunctionData('approve', [spender, 0n]) })), ['Revoked the allowance of Router for USDC'])
  t.same(texts(facts({ to: nft.address, input: erc20.encodeFunctionData('approve', [spender, 5n]) })), ['Approved Router to transfer KIT #5'])
  t.same(texts(facts({ input: erc20.encodeFunctionData('increaseAllowance', [spender, 500_000n]) })), ['Increased the allowance of Router by 0.5 USDC'])
  t.same(texts(facts({ input: erc20.encodeFunctionData('decreaseAllowance', [spender, 500_000n]) })), ['Decreased the allowance of Router by 0.5 USDC'])
  t.same(texts(facts({ to: nft.address, input: erc20.encodeFunctionData('setApprovalForAll', [spender, true]) })), ['Approved Router to transfer all of KIT'])
  t.same(texts(facts({ to: nft.address, input: erc20.encodeFunctionData('setApprovalForAll', [spender, false]) })), ['Revoked the approval of Router for all of KIT'])
  const [permit] = summarize(facts({ to: dai.address, input: erc20.encodeFunctionData('permit', [sender, spender, parseEther('2'), 1_800_000_000n, 27, '0x' + '01'.repeat(32), '0x' + '02'.repeat(32)]) }))
  t.equal(permit!.summary_template, 'Permitted {spender_address} to spend {amount} {token} of {owner_address} until {deadline}')
  t.same(permit!.summary_template_variables.deadline, { type: 'timestamp', value: '1800000000' })
  t.same(permit!.summary_template_variables.amount, { type: 'currency', value: '2' })
})

t.test('WETH wrap and unwrap', async (t) => {
  t.same(texts(facts({ to: weth.address, input: erc20.encodeFunctionData('deposit'), value: parseEther('0.3') })), ['Wrapped 0.3 TEST into WETH'])
  t.same(texts(facts({ to: weth.address, input: erc20.encodeFunctionData('withdraw', [parseEther('0.25')]) })), ['Unwrapped 0.25 WETH into TEST'])
})

t.test('a swap through a router: what the sender paid and got, from the transfers or the coins', async (t) => {
  const pair = addr()
  const tokenSwap = facts({
    to: router,
    input: erc20.encodeFunctionData('swapExactTokensForTokens', [2_000_000n, 1n, [usdc.address, dai.address], sender, 1n]),
    transfers: [transfer(usdc, sender, pair, '2000000'), transfer(dai, pair, sender, parseEther('1.99').toString(), null, 1)]
  })
  const [line] = summarize(tokenSwap)
  t.equal(line!.summary_template, 'Swapped {amount_in} {token_in} for {amount_out} {token_out}')
  t.same(renderSummary(line!, 'TEST'), 'Swapped 2 USDC for 1.99 DAI')
  t.equal(summarize(tokenSwap).length, 1, 'the swap\'s legs are not listed again')
  const coinSwap = facts({
    to: router,
    value: parseEther('1'),
    input: erc20.encodeFunctionData('swapExactETHForTokens', [1n, [weth.address, dai.address], sender, 1n]),
    transfers: [transfer(dai, pair, sender, parseEther('3').toString())]
  })
  t.same(texts(coinSwap), ['Swapped 1 TEST for 3 DAI'])
})

t.test('many transfers are summarised per token, and as one line past three tokens', async (t) => {
  const airdrop = facts({ to: router, input: '0xc204642c' + '00'.repeat(64), transfers: Array.from({ length: 50 }, (_, i) => transfer(usdc, router, addr(), '1000000', null, i)) })
  t.same(texts(airdrop), ['Called 0xc204642c on Router', 'Transferred 50 USDC in 50 transfers to 50 addresses'])
  const mixed = facts({ to: router, input: '0xc204642c', transfers: tokens.flatMap((k, i) => [transfer(k, router, receiver, '1', '1', i), transfer(k, router, sender, '1', '2', i)]) })
  t.same(texts(mixed), ['Called 0xc204642c on Router', 'Made 10 token transfers of 5 tokens'])
  t.equal(summarize(mixed)[1]!.summary_template_variables.transfer_count!.type, 'string')
})

t.test('a known method and an unknown call are named by method and callee, a known one with its arguments', async (t) => {
  const [known] = summarize(facts({ to: router, input: erc20.encodeFunctionData('transferOwnership', [receiver]) }))
  t.same(known, {
    summary_template: 'Called {method} on {to_address} with {arguments}',
    summary_template_variables: {
      method: { type: 'method', value: 'transferOwnership' },
      to_address: { type: 'address', value: { hash: getAddress(router), name: 'Router', is_contract: true, is_verified: false } },
      arguments: { type: 'string', value: `newOwner: ${getAddress(receiver)}` }
    }
  })
  t.same(texts(facts({ to: router, input: erc20.encodeFunctionData('renounceOwnership') })), ['Called renounceOwnership on Router'], 'no arguments: no "with"')
  const unknownCallee = addr()
  t.same(texts(facts({ to: unknownCallee, input: '0x12345678', toIsContract: true })), [`Called 0x12345678 on ${getAddress(unknownCallee)}`])
  t.same(texts(facts({ to: router, input: '0x12345678', value: 5n * 10n ** 17n })), ['Called 0x12345678 on Router', 'Sent 0.5 TEST to Router'])
  t.same(texts(facts({ to: receiver, input: '0x12345678', value: 1n })), [`Sent 0.000000000000000001 TEST to ${getAddress(receiver)}`], 'bytes to an address without code are a coin transfer')
})

t.test('a call that failed inside a transaction that succeeded says so', async (t) => {
  const call = (traceIndex: number, error: string | null) => ({ type: 'call', from: router, to: usdc.address, createdContract: null, value: '0', error, traceIndex })
  const lines = summarize(facts({ to: router, input: '0x12345678', calls: [call(0, null), call(1, 'execution reverted')] }))
  t.same(lines.map((l) => renderSummary(l, 'TEST')), ['Called 0x12345678 on Router', 'An internal call to USD Coin failed (execution reverted); the transaction succeeded'])
  t.same(lines[1]!.summary_template_variables.error, { type: 'string', value: 'execution reverted' })
  const two = summarize(facts({ to: router, input: '0x12345678', calls: [call(1, 'out of gas'), call(2, 'execution reverted')] }))
  t.equal(renderSummary(two[1]!, 'TEST'), '2 internal calls failed, the first to USD Coin (out of gas); the transaction succeeded')
})

t.test('summarize() is deterministic', async (t) => {
  const f = facts({ input: erc20.encodeFunctionData('transfer', [receiver, 1n]), transfers: [transfer(usdc, sender, receiver, '1')] })
  t.same(summarize(f), summarize(f))
  t.equal(JSON.stringify(summarize(f)), JSON.stringify(summarize(f)))
})

t.test('argumentsText() writes each argument as decoded_input does, arrays as JSON, long values cut', async (t) => {
  t.equal(argumentsText([{ name: 'to', type: 'address', value: '0xAb' }, { name: 'amounts', type: 'uint256[]', value: ['1', '2'] }]), 'to: 0xAb, amounts: ["1","2"]')
  const long = argumentsText([{ name: 'data', type: 'bytes', value: '0x' + 'ab'.repeat(100) }])
  t.equal(long.length, 'data: '.length + MAX_ARGUMENT_CHARS, 'cut to the limit')
  t.ok(long.endsWith('…'))
})
