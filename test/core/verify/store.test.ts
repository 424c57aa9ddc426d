// The verified contracts' table: a full match replaces a partial one and
// nothing replaces a full one, the list pages by id with q matching a name
// or an address (LIKE's wildcards taken literally), twins are found by code.
import t from 'tap'
import pino from 'pino'
import { openDatabase } from '../../../core/db/index.ts'
import { countVerifiedContracts, findVerifiedContract, findVerifiedContracts, findVerifiedTwin, listVerifiedContracts } from '../../../core/verify/index.ts'
import { storeVerifiedContract } from '../../../core/verify/store.ts'
import { createTestDatabase } from '../../support/database.ts'
import { numberedAddress, verifiedRow } from '../../support/verified-rows.ts'

const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '', log: pino({ level: 'warn' }) })
t.teardown(async () => await database.close())
const db = database.knex

const address = numberedAddress
const codeHash = (i: number) => Buffer.alloc(32, i)
const row = verifiedRow

t.test('storeVerifiedContract(): a full match replaces a partial one; nothing replaces a full one', async (t) => {
  t.equal(await storeVerifiedContract(db, row(1, { matchType: 'partial', name: 'First' })), true)
  t.equal(await storeVerifiedContract(db, row(1, { matchType: 'partial', name: 'Second' })), true, 'a partial replaces a partial')
  t.match(await findVerifiedContract(db, address(1)), { name: 'Second', matchType: 'partial' })
  t.equal(await storeVerifiedContract(db, row(1, { name: 'Full', constructorArguments: '0xabcd' })), true)
  t.equal(await storeVerifiedContract(db, row(1, { matchType: 'partial', name: 'Late' })), false)
  t.equal(await storeVerifiedContract(db, row(1, { name: 'Again' })), false)
  const stored = await findVerifiedContract(db, Buffer.from(address(1).slice(2), 'hex'))
  t.match(stored, { address: address(1), name: 'Full', matchType: 'full', constructorArguments: '0xabcd', sources: { 'C1.sol': 'contract Contract1 {}' } })
  t.ok(Number.isSafeInteger(stored!.verifiedAtMs) && Math.abs(stored!.verifiedAtMs - Date.now()) < 600_000, 'verified now, in epoch ms')
  t.equal(await findVerifiedContract(db, address(999)), null)
})

t.test('listVerifiedContracts() pages newest first by id; q matches part of a name or address, wildcards literally', async (t) => {
  for (let i = 2; i <= 6; i++) await storeVerifiedContract(db, row(i, i === 6 ? { name: 'Odd_%Name' } : {}))
  const first = await listVerifiedContracts(db, { limit: 3 })
  t.same(first.map((c) => c.address), [address(6), address(5), address(4)])
  const next = await listVerifiedContracts(db, { limit: 3, beforeId: first.at(-1)!.id })
  t.same(next.map((c) => c.address), [address(3), address(2), address(1)])
  t.same((await listVerifiedContracts(db, { limit: 10, q: 'contract3' })).map((c) => c.address), [address(3)])
  t.same((await listVerifiedContracts(db, { limit: 10, q: '_%' })).map((c) => c.address), [address(6)], 'the name with _% only')
  t.same((await listVerifiedContracts(db, { limit: 10, q: '0x0000000000000000000000000000000000000005' })).map((c) => c.address), [address(5)])
  t.same(await listVerifiedContracts(db, { limit: 10, q: 'Contract\u0000' }), [], 'a NUL (which PostgreSQL refuses) matches nothing')
  t.same(await countVerifiedContracts(db), { verified: '6', verified24h: '6' })
  t.same(await countVerifiedContracts(db, new Date(Date.now() + 2 * 86_400_000)), { verified: '6', verified24h: '0' })
})

t.test('findVerifiedTwin() finds another address with the code\'s hash, never the address itself', async (t) => {
  t.match(await findVerifiedTwin(db, codeHash(3), address(77)), { address: address(3) })
  t.equal(await findVerifiedTwin(db, codeHash(3), address(3)), null)
  t.equal(await findVerifiedTwin(db, codeHash(99), address(77)), null)
})

t.test('findVerifiedContracts() reads many addresses at once, keyed by lower-case address', async (t) => {
  const found = await findVerifiedContracts(db, [address(2), address(999), Buffer.from(address(3).slice(2), 'hex')])
  t.same([...found.keys()].sort(), [address(2), address(3)])
  t.equal(found.get(address(3))!.name, 'Contract3')
  t.same(await findVerifiedContracts(db, []), new Map())
})
