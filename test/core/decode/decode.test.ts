// decodeInput / decodeLog / createDecoder: fixtures encoded by ethers, a real
// ABI compiled by solc for the verified path, the table for the rest.
import t from 'tap'
import { AbiCoder, Interface, Wallet, getAddress, id, keccak256, toUtf8Bytes, zeroPadValue } from 'ethers'
import { createAbiTable, createDecoder, decodeInput, decodeLog, type AbiSource } from '../../../core/decode/index.ts'
import { compileContract } from '../../support/contracts.ts'

const showcase = await compileContract(new URL('../../fixtures/contracts/Showcase.sol', import.meta.url), 'Showcase')
const verified = new Interface(showcase.abi as never)
const erc20 = new Interface(['function transfer(address to, uint256 amount)', 'event Transfer(address indexed from, address indexed to, uint256 value)'])
const alice = getAddress(Wallet.createRandom().address)
const bob = getAddress(Wallet.createRandom().address)

t.test('decodeInput() decodes a table function with its names, checksummed addresses and decimal strings', async (t) => {
  const input = erc20.encodeFunctionData('transfer', [alice.toLowerCase(), 10n ** 30n])
  t.same(decodeInput(input, null), {
    method_id: 'a9059cbb',
    method_call: 'transfer(address to, uint256 amount)',
    parameters: [{ name: 'to', type: 'address', value: alice }, { name: 'amount', type: 'uint256', value: '1000000000000000000000000000000' }]
  })
})

t.test('decodeInput() prefers the verified ABI over the table', async (t) => {
  const input = verified.encodeFunctionData('transfer', [bob, 5n])
  t.equal(decodeInput(input, showcase.abi)?.method_call, 'transfer(address dest, uint256 wad)')
  t.equal(decodeInput(input, null)?.method_call, 'transfer(address to, uint256 amount)')
})

t.test('decodeInput() falls back to the table when the verified ABI lacks the selector', async (t) => {
  const input = new Interface(['function approve(address spender, uint256 amount)']).encodeFunctionData('approve', [bob, 1n])
  t.equal(decodeInput(input, showcase.abi)?.method_call, 'approve(address spender, uint256 amount)')
})

t.test('decodeInput() renders tuples, arrays, fixed arrays, strings, bytes, bools and signed integers', async (t) => {
  const keys = [id('a'), id('b')]
  const input = verified.encodeFunctionData('note', ['héllo', [alice, [1n, 2n], '0xDEADbeef'], keys, true, -5])
  const decoded = decodeInput(input, showcase.abi)!
  t.equal(decoded.method_call, 'note(string topic, (address,uint256[],bytes) order, bytes32[2] keys, bool flag, int8 delta)')
  t.same(decoded.parameters, [
    { name: 'topic', type: 'string', value: 'héllo' },
    { name: 'order', type: '(address,uint256[],bytes)', value: [alice, ['1', '2'], '0xdeadbeef'] },
    { name: 'keys', type: 'bytes32[2]', value: keys },
    { name: 'flag', type: 'bool', value: 'true' },
    { name: 'delta', type: 'int8', value: '-5' }
  ])
  // The same values as ethers' own decoding.
  const own = verified.decodeFunctionData('note', input)
  t.equal(decoded.parameters[0]!.value, own[0])
  t.equal(decoded.parameters[4]!.value, own[4].toString())
})

t.test('decodeInput() names unnamed parameters arg0, arg1...', async (t) => {
  const decoded = decodeInput(verified.encodeFunctionData('unnamed', [7n, alice]), showcase.abi)!
  t.equal(decoded.method_call, 'unnamed(uint256 arg0, address arg1)')
  t.same(decoded.parameters.map((p) => p.name), ['arg0', 'arg1'])
})

t.test('decodeInput() renders a string that is not UTF-8 as hex', async (t) => {
  const bytes = AbiCoder.defaultAbiCoder().encode(['bytes', '(address,uint256[],bytes)', 'bytes32[2]', 'bool', 'int8'], ['0xff00fe', [alice, [], '0x'], [id('a'), id('b')], false, 1])
  const input = verified.getFunction('note')!.selector + bytes.slice(2)
  t.equal(decodeInput(input, showcase.abi)!.parameters[0]!.value, '0xff00fe')
})

t.test('decodeInput() decodes Multicall3 and Uniswap V3 tuples from the table', async (t) => {
  const multicall = new Interface(['function aggregate3((address target, bool allowFailure, bytes callData)[] calls)'])
  const inner = erc20.encodeFunctionData('transfer', [bob, 1n])
  const decoded = decodeInput(multicall.encodeFunctionData('aggregate3', [[[alice, false, inner]]]), null)!
  t.same(decoded.parameters, [{ name: 'calls', type: '(address,bool,bytes)[]', value: [[alice, 'false', inner]] }])
})

t.test('decodeInput() answers null for malformed or unknown input, never throws', async (t) => {
  const good = erc20.encodeFunctionData('transfer', [alice, 1n])
  for (const input of ['', '0x', '0xa905', '0xa9059cbb', good.slice(0, -2), good.slice(0, 40), 'a9059cbb' + '00'.repeat(64), '0xzz059cbb' + '00'.repeat(64), good + '0', '0x12345678' + '00'.repeat(64),
    // An address word with its upper bytes set is no address.
    '0xa9059cbb' + 'ff'.repeat(32) + '00'.repeat(32),
    // A dynamic array claiming 2^255 items.
    multicallOf('8' + '0'.repeat(63))]) {
    t.equal(decodeInput(input, null), null, input.slice(0, 24))
  }
  t.same(decodeInput(good, [{ type: 'nonsense' }] as never), decodeInput(good, null), 'an ABI ethers cannot read is ignored')
  t.equal(decodeInput(42 as never, null), null)
})

function multicallOf (length: string): string {
  return '0x' + new Interface(['function multicall(bytes[] data)']).getFunction('multicall')!.selector.slice(2) + '0'.repeat(62) + '20' + length
}

t.test('decodeLog() tells ERC-20 from ERC-721 Transfer by the indexed topics', async (t) => {
  const topic = id('Transfer(address,address,uint256)')
  const from = zeroPadValue(alice, 32)
  const to = zeroPadValue(bob, 32)
  const fungible = decodeLog([topic, from, to, null], AbiCoder.defaultAbiCoder().encode(['uint256'], [12n]), null)!
  t.same(fungible, {
    method_id: 'ddf252ad',
    method_call: 'Transfer(address indexed from, address indexed to, uint256 value)',
    parameters: [
      { name: 'from', type: 'address', indexed: true, value: alice },
      { name: 'to', type: 'address', indexed: true, value: bob },
      { name: 'value', type: 'uint256', indexed: false, value: '12' }
    ]
  })
  const nft = decodeLog([topic, from, to, zeroPadValue('0x07', 32)], '0x', null)!
  t.equal(nft.method_call, 'Transfer(address indexed from, address indexed to, uint256 indexed tokenId)')
  t.same(nft.parameters[2], { name: 'tokenId', type: 'uint256', indexed: true, value: '7' })
})

t.test('decodeLog() with the verified ABI equals ethers\' decoding; an indexed string is its hash', async (t) => {
  const log = verified.encodeEventLog('Noted', ['topic', alice, -3n, [bob, [4n], '0x01']])
  const decoded = decodeLog(log.topics, log.data, showcase.abi)!
  const own = verified.decodeEventLog('Noted', log.data, log.topics)
  t.equal(decoded.method_call, 'Noted(string indexed topic, address indexed who, int256 delta, (address,uint256[],bytes) order)')
  t.same(decoded.parameters, [
    { name: 'topic', type: 'string', indexed: true, value: keccak256(toUtf8Bytes('topic')) },
    { name: 'who', type: 'address', indexed: true, value: own[1] },
    { name: 'delta', type: 'int256', indexed: false, value: own[2].toString() },
    { name: 'order', type: '(address,uint256[],bytes)', indexed: false, value: [own[3][0], ['4'], own[3][2]] }
  ])
  t.equal(decodeLog(log.topics, log.data, null), null, 'not in the table')
})

t.test('decodeLog() answers null for malformed logs', async (t) => {
  const topic = id('Transfer(address,address,uint256)')
  const word = zeroPadValue(alice, 32)
  t.equal(decodeLog([], '0x', null), null)
  t.equal(decodeLog([null, null, null, null], '0x', null), null)
  t.equal(decodeLog([topic, word, word], '0x01', null), null, 'data too short')
  t.equal(decodeLog([topic, word], '0x' + '00'.repeat(32), null), null, 'too few topics for either Transfer')
  t.equal(decodeLog([topic.slice(0, 20), word, word], '0x' + '00'.repeat(32), null), null, 'a topic that is no hash')
  t.equal(decodeLog([topic, '0x' + 'ff'.repeat(32), word], '0x' + '00'.repeat(32), null), null, 'no address')
  t.equal(decodeLog([topic, word, word], 'zz', null), null)
})

t.test('createDecoder() reads the ABI source once per distinct input and combines a proxy with its implementation', async (t) => {
  const asked: string[] = []
  const proxy = '0x' + '11'.repeat(20)
  const abiSource: AbiSource = {
    abiFor: async (address) => {
      asked.push(address)
      return address === proxy ? { name: 'Proxy', abi: [], implementation: { name: 'Showcase', abi: showcase.abi } } : null
    }
  }
  const decoder = createDecoder({ abiSource, maxCachedEntries: 2 })
  const input = verified.encodeFunctionData('transfer', [bob, 5n])
  t.equal((await decoder.decodeInput(proxy.toUpperCase().replace('0X', '0x'), input))?.method_call, 'transfer(address dest, uint256 wad)')
  t.equal((await decoder.decodeInput(proxy, input))?.method_call, 'transfer(address dest, uint256 wad)')
  t.same(asked, [proxy], 'the second decoding came from the cache')
  t.equal((await decoder.decodeInput('0x' + '22'.repeat(20), input))?.method_call, 'transfer(address to, uint256 amount)')
  t.equal(await decoder.decodeInput(null, input), null, 'a creation has no decoded input')
  t.equal(await decoder.decodeInput(proxy, '0x'), null)
  t.equal(await decoder.contractName(proxy), 'Proxy')
  const log = erc20.encodeEventLog('Transfer', [alice, bob, 3n])
  t.equal((await decoder.decodeLog(proxy, log.topics, log.data))?.parameters[2]?.value, '3')
})

t.test('createDecoder().decodeInputs() reads each distinct target\'s ABI once for a page, however many rows call it', async (t) => {
  const asked: string[] = []
  const token = '0x' + '33'.repeat(20)
  const other = '0x' + '44'.repeat(20)
  const abiSource: AbiSource = {
    // Slow enough that every row would be in flight at once, were each to ask for itself.
    abiFor: async (address) => {
      asked.push(address)
      await new Promise((resolve) => setTimeout(resolve, 20))
      return address === token ? { name: 'Showcase', abi: showcase.abi } : null
    }
  }
  const decoder = createDecoder({ abiSource })
  const calls = [
    ...Array.from({ length: 50 }, (_, i) => ({ to: i % 2 === 0 ? token : token.toUpperCase().replace('0X', '0x'), input: verified.encodeFunctionData('transfer', [bob, BigInt(i)]) })),
    { to: other, input: erc20.encodeFunctionData('transfer', [alice, 1n]) },
    { to: other, input: '0xdeadbeef' },
    { to: null, input: erc20.encodeFunctionData('transfer', [alice, 1n]) },
    { to: token, input: '0x' }
  ]
  const decoded = await decoder.decodeInputs(calls)
  t.same(asked.sort(), [token, other], 'one read per target, the case of its address aside')
  t.equal(decoded.length, calls.length, 'an answer per call, by position')
  t.ok(decoded.slice(0, 50).every((d, i) => d?.method_call === 'transfer(address dest, uint256 wad)' && d.parameters[1]?.value === String(i)), 'by the target\'s ABI')
  t.equal(decoded[50]?.method_call, 'transfer(address to, uint256 amount)', 'an unverified target: the table')
  t.same(decoded.slice(51), [null, null, null], 'an unknown selector, a creation and an input shorter than a selector: nothing')
  t.equal((await decoder.decodeInput(token, calls[0]!.input))?.method_call, 'transfer(address dest, uint256 wad)', 'decodeInput() reads what decodeInputs() cached')
  t.equal(asked.length, 2)
})

t.test('createAbiTable() keeps one fragment per signature (event: with its indexed flags), the first added', async (t) => {
  const table = createAbiTable()
  table.add(JSON.parse(erc20.formatJson()))
  table.add(showcase.abi)
  table.add(['event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)', 'event Quiet(uint256 a) anonymous', 'not a fragment'])
  const transfer = erc20.getFunction('transfer')!.selector
  t.same(table.functions(transfer).map((f) => f.format('full')), ['function transfer(address to, uint256 amount)'], 'Showcase\'s transfer(dest, wad) is the same function')
  t.same(table.events(id('Transfer(address,address,uint256)')).map((e) => e.format('minimal')),
    ['event Transfer(address indexed,address indexed,uint256)', 'event Transfer(address indexed,address indexed,uint256 indexed)'], 'ERC-721\'s Transfer is another event')
  t.same(table.events(id('Quiet(uint256)')), [], 'an anonymous event has no topic to be found by')
  t.equal(table.size, 6, 'transfer, note, unnamed, Transfer twice, Noted')
})

t.test('decodeInput() and decodeLog() try the verified ABIs\' table after the target\'s own ABI, before the bundled one', async (t) => {
  const table = createAbiTable()
  table.add(showcase.abi)
  const transfer = verified.encodeFunctionData('transfer', [bob, 5n])
  t.equal(decodeInput(transfer, null, table)?.method_call, 'transfer(address dest, uint256 wad)', 'a verified ABI\'s fragment before the bundled one')
  t.equal(decodeInput(transfer, JSON.parse(erc20.formatJson()), table)?.method_call, 'transfer(address to, uint256 amount)', 'the target\'s own first')
  const note = verified.encodeFunctionData('note', ['x', [alice, [], '0x'], [id('a'), id('b')], true, 1])
  t.equal(decodeInput(note, null), null, 'in no bundled table')
  t.same(decodeInput(note, null, table), decodeInput(note, showcase.abi), 'as by its own ABI')
  const log = verified.encodeEventLog('Noted', ['topic', alice, -3n, [bob, [4n], '0x01']])
  t.equal(decodeLog(log.topics, log.data, null), null)
  t.same(decodeLog(log.topics, log.data, null, table), decodeLog(log.topics, log.data, showcase.abi))
  const approval = new Interface(['function approve(address, uint256)']).encodeFunctionData('approve', [bob, 1n])
  t.equal(decodeInput(approval, null, table)?.method_call, 'approve(address spender, uint256 amount)', 'what the table lacks, the bundled one decodes')
})

t.test('createDecoder() decodes by the source\'s verified table; clear() forgets the source\'s answers too, and a decoding read across it is not kept', async (t) => {
  const table = createAbiTable()
  table.add(showcase.abi)
  let release: (() => void) | undefined
  const asked: string[] = []
  let forgotten = 0
  const abiSource: AbiSource = {
    abiFor: async (address) => {
      asked.push(address)
      if (release === undefined) await new Promise<void>((resolve) => { release = resolve })
      return null
    },
    verifiedTable: async () => table,
    forget: () => { forgotten++ }
  }
  const decoder = createDecoder({ abiSource })
  const unverified = '0x' + '33'.repeat(20)
  const note = verified.encodeFunctionData('note', ['x', [alice, [], '0x'], [id('a'), id('b')], true, 1])
  const decoding = decoder.decodeInput(unverified, note)
  while (asked.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
  decoder.clear()
  t.equal(forgotten, 1)
  release!()
  t.match(await decoding, { method_call: /^note\(/ })
  await decoder.decodeInput(unverified, note)
  t.equal(asked.length, 2, 'the decoding that began before clear() was not kept')
  await decoder.decodeInput(unverified, note)
  t.equal(asked.length, 2, 'the one after was')
  const log = verified.encodeEventLog('Noted', ['topic', alice, -3n, [bob, [4n], '0x01']])
  t.match(await decoder.decodeLog(unverified, log.topics, log.data), { method_call: /^Noted\(/ })
})
