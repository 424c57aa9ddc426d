// createAddressNameReader(): what it keeps of the names a page read, for how
// long, and what forgets it. The query is the store's real shape (rows only
// for named addresses) answered from a table here: the reader's keeping is
// what is tested (the query itself runs on a real chain in
// test/plugins/rest/address-names.test.ts).
import t from 'tap'
import { KEPT_MS, createAddressNameReader } from '../../../core/address-names/index.ts'
import type { AddressNameRow } from '../../../core/queries/addresses/address-names.ts'

const A = '0x' + 'aa'.repeat(20)
const B = '0x' + 'bb'.repeat(20)
const C = '0x' + 'cc'.repeat(20)

function setup () {
  let now = 1_000
  const table = new Map<string, Omit<AddressNameRow, 'address'>>([
    [A, { verified_name: 'Vault', token_name: 'Vault Token', tag: null }],
    [B, { verified_name: null, token_name: 'Beta', tag: 'Market maker' }]
  ])
  const asked: string[][] = []
  let pause: Promise<void> | undefined
  const queries = {
    async readAddressNames (addresses: readonly Buffer[]): Promise<AddressNameRow[]> {
      const keys = addresses.map((a) => '0x' + a.toString('hex'))
      asked.push(keys)
      await pause
      return keys.flatMap((address) => { const row = table.get(address); return row === undefined ? [] : [{ address, ...row }] })
    }
  }
  return { table, asked, queries, nowMs: () => now, advance: (ms: number) => { now += ms }, hold: (p: Promise<void>) => { pause = p } }
}

t.test('read() asks once for the distinct addresses not kept, skips nulls, and names by lowercase 0x-hex', async (t) => {
  const s = setup()
  const reader = await createAddressNameReader({ queries: s.queries, nowMs: s.nowMs })
  const names = await reader.read([A.toUpperCase().replace('0X', '0x'), B, null, C, A])
  t.same(s.asked, [[A, B, C]])
  t.same(names.get(A), { name: 'Vault', isVerified: true, tag: null }, 'the verified name wins over the token\'s')
  t.same(names.get(B), { name: 'Beta', isVerified: false, tag: 'Market maker' }, 'the token\'s name, not verified, tagged')
  t.equal(names.has(C), false, 'an unnamed address is absent')
  const again = await reader.read([C, B])
  t.same(s.asked.length, 1, 'named and unnamed addresses are both kept')
  t.equal(again.get(B), names.get(B), 'the same object while kept (presenters key their objects on it)')
})

t.test('names are kept KEPT_MS: a change shows after that, or at once after forget(), which tells the listeners', async (t) => {
  const s = setup()
  const reader = await createAddressNameReader({ queries: s.queries, nowMs: s.nowMs })
  await reader.read([C])
  s.table.set(C, { verified_name: null, token_name: null, tag: 'Faucet' })
  s.advance(KEPT_MS - 1)
  t.equal((await reader.read([C])).has(C), false, 'still kept')
  s.advance(1)
  t.same((await reader.read([C])).get(C), { name: null, isVerified: false, tag: 'Faucet' }, 'read again once expired')
  let told = 0
  const stop = reader.onChange(() => { told++ })
  s.table.delete(C)
  reader.forget()
  t.equal(told, 1)
  t.equal((await reader.read([C])).has(C), false, 'read again after forget()')
  stop()
  reader.forget()
  t.equal(told, 1, 'an unsubscribed listener is not told')
})

t.test('a read overlapping a forget() answers what it read but keeps none of it', async (t) => {
  const s = setup()
  const reader = await createAddressNameReader({ queries: s.queries, nowMs: s.nowMs })
  let release = () => {}
  s.hold(new Promise((resolve) => { release = resolve }))
  const reading = reader.read([A])
  reader.forget()
  release()
  t.equal((await reading).get(A)?.name, 'Vault')
  s.hold(Promise.resolve())
  await reader.read([A])
  t.equal(s.asked.length, 2, 'asked again')
})
