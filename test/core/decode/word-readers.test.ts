// The static types' word readers (core/decode/values.ts) answer what ethers' own decoder answers, rendered:
// every width of int and uint, bool, bytesN and address, on words that encode a value and on words that do not.
import t from 'tap'
import fc from 'fast-check'
import { AbiCoder, Interface, ParamType } from 'ethers'
import { decodingType, renderValue, wordReader } from '../../../core/decode/values.ts'
import { decodeLog } from '../../../core/decode/decode.ts'

const coder = AbiCoder.defaultAbiCoder()
const WIDTHS = Array.from({ length: 32 }, (_, i) => (i + 1) * 8)
const TYPES = ['address', 'bool', ...WIDTHS.map((w) => `uint${w}`), ...WIDTHS.map((w) => `int${w}`), ...WIDTHS.map((w) => `bytes${w / 8}`)]

/** What ethers decodes from `words` for `params`, rendered; null where it throws. */
function byEthers (params: ParamType[], data: string): unknown {
  try {
    const values = coder.decode(params.map(decodingType), data)
    return params.map((p, i) => renderValue(p, values[i]))
  } catch {
    return null
  }
}

const word = fc.oneof(
  fc.uint8Array({ minLength: 32, maxLength: 32 }),
  // Mostly zero words with a few bytes set at the end: small numbers and clean addresses.
  fc.uint8Array({ minLength: 1, maxLength: 20 }).map((tail) => Uint8Array.from([...new Uint8Array(32 - tail.length), ...tail])),
  fc.constant(new Uint8Array(32)),
  fc.constant(new Uint8Array(32).fill(255))
).map((bytes) => Buffer.from(bytes).toString('hex'))

t.test('each static type read from a word as ethers decodes it', async (t) => {
  t.same(TYPES.filter((type) => wordReader(ParamType.from(type)) === null), [], 'every static elementary type has a reader')
  fc.assert(fc.property(fc.constantFrom(...TYPES), word, fc.boolean(), (type, hex, upper) => {
    const param = ParamType.from(type)
    const reader = wordReader(param)
    const expected = byEthers([param], '0x' + (upper ? hex.toUpperCase() : hex))
    const actual = reader!(hex)
    return JSON.stringify(expected === null ? null : (expected as unknown[])[0]) === JSON.stringify(actual)
  }), { numRuns: 20_000 })
})

t.test('dynamic and composite types are left to ethers', async (t) => {
  for (const type of ['string', 'bytes', 'uint256[]', 'address[2]', '(uint256,address)']) t.equal(wordReader(ParamType.from(type)), null, type)
})

t.test('a log of static parameters decodes as ethers decodes it, short data decodes to nothing', async (t) => {
  const abi = ['event Moved(address indexed from, int24 indexed tick, uint128 amount, bytes4 tag, bool done)']
  const topic0 = new Interface(abi).getEvent('Moved')!.topicHash
  fc.assert(fc.property(word, word, word, word, word, (from, tick, amount, tag, done) => {
    const topics = [topic0, '0x' + from, '0x' + tick]
    const data = '0x' + amount + tag + done
    const decoded = decodeLog(topics, data, abi)
    const params = [ParamType.from('address'), ParamType.from('int24'), ParamType.from('uint128'), ParamType.from('bytes4'), ParamType.from('bool')]
    const expected = [byEthers([params[0]!], topics[1]!), byEthers([params[1]!], topics[2]!), byEthers(params.slice(2), data)]
    if (expected.some((e) => e === null)) return decoded === null
    const values = [...(expected[0] as unknown[]), ...(expected[1] as unknown[]), ...(expected[2] as unknown[])]
    return JSON.stringify(decoded?.parameters.map((p) => p.value)) === JSON.stringify(values)
  }), { numRuns: 5_000 })
  t.ok(decodeLog([topic0, '0x' + '00'.repeat(32), '0x' + '00'.repeat(32)], '0x' + '00'.repeat(96), abi) !== null, 'zeros decode')
  t.equal(decodeLog([topic0, '0x' + '00'.repeat(32), '0x' + '00'.repeat(32)], '0x' + '00'.repeat(95), abi), null, 'a byte short')
})
