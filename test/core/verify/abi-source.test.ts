// The decoder's ABI source over verified contracts: an address nobody
// verified costs no query for its row (the verified addresses are kept as a
// set), nothing verified means no proxy detection at all, a verification
// shows at once after forget (every instance hears of one) and within
// ABI_SOURCE_TTL_MS without it, an unverified proxy decodes by its verified
// implementation without taking its name, a bytecode twin decodes by its
// verified twin's ABI, and the table of every verified ABI grows by the rows
// verified since it was read.
import t from 'tap'
import pino from 'pino'
import { id } from 'ethers'
import { openDatabase } from '../../../core/db/index.ts'
import { ABI_SOURCE_TTL_MS, createVerifiedAbiSource } from '../../../core/verify/abi-source.ts'
import { storeVerifiedContract } from '../../../core/verify/store.ts'
import { runtimeCodeHash } from '../../../core/verify/verify.ts'
import type { ProxyDetector } from '../../../core/verify/proxy.ts'
import { createTestDatabase } from '../../support/database.ts'
import { numberedAddress, verifiedRow } from '../../support/verified-rows.ts'

const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '', log: pino({ level: 'warn' }) })
t.teardown(async () => await database.close())
const db = database.knex

const address = numberedAddress
const ABI = [{ type: 'function', name: 'poke', inputs: [], outputs: [], stateMutability: 'nonpayable' }]
const row = (i: number) => verifiedRow(i, { abi: ABI })

/** SQL the source sent while `work` ran. */
async function queriesDuring (work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = []
  const listen = (query: { sql: string }) => seen.push(query.sql)
  db.on('query', listen)
  try {
    await work()
  } finally {
    db.off('query', listen)
  }
  return seen
}

/** A proxy detector that says every contract delegates to `implementation`, counting what it is asked. */
function proxyTo (implementation: string): ProxyDetector & { asked: string[] } {
  const asked: string[] = []
  return { asked, detect: async (a) => { asked.push(a); return { type: 'eip1967', implementations: [implementation] } } }
}

// Contracts 10 (a proxy to 11) and 12 (an ordinary contract) have code; 11 will be verified.
await db.raw('insert into addresses (hash, contract_code) values (?, ?), (?, ?), (?, ?)',
  [10, 11, 12].flatMap((i) => [Buffer.from(address(i).slice(2), 'hex'), Buffer.from('6000', 'hex')]))

t.test('abiFor(): with nothing verified, one read of the (empty) set answers every address; no proxy is looked for', async (t) => {
  const proxies = proxyTo(address(11))
  const source = createVerifiedAbiSource({ db, proxies })
  const sql = await queriesDuring(async () => {
    for (const i of [10, 12, 13]) t.equal(await source.abiFor(address(i)), null)
  })
  t.equal(sql.length, 1, 'the verified set only')
  t.match(sql[0], /from verified_contracts/)
  t.same(proxies.asked, [], 'no implementation can be verified')
})

t.test('abiFor(): a verification here shows at once after forget(); an unverified address reads no verified row', async (t) => {
  const proxies = proxyTo(address(11))
  const source = createVerifiedAbiSource({ db, proxies })
  t.equal(await source.abiFor(address(11)), null)
  await storeVerifiedContract(db, row(11))
  t.equal(await source.abiFor(address(11)), null, 'cached until forgotten')
  source.forget()
  t.match(await source.abiFor(address(11)), { name: 'Contract11', abi: ABI })

  const sql = await queriesDuring(async () => t.equal(await source.abiFor(address(13)), null))
  t.notOk(sql.some((q) => /from verified_contracts where address/.test(q)), 'no verified row is read for an address not in the set')
  t.same(await source.abiFor(address(10)), { name: null, abi: null, implementation: { name: 'Contract11', abi: ABI } },
    'the unverified proxy decodes by its verified implementation, and is not named after it')
  t.ok(proxies.asked.includes(address(10)))
})

t.test('abiFor(): a verification elsewhere (no forget) shows once ABI_SOURCE_TTL_MS has passed', async (t) => {
  let now = 1_000_000
  const source = createVerifiedAbiSource({ db, nowMs: () => now })
  t.equal(await source.abiFor(address(12)), null)
  await storeVerifiedContract(db, row(12))
  now += ABI_SOURCE_TTL_MS - 1
  t.equal(await source.abiFor(address(12)), null, 'still the cached answer')
  now += 1
  t.match(await source.abiFor(address(12)), { name: 'Contract12' })
})

t.test('abiFor(): a failed read of the set is not kept', async (t) => {
  const source = createVerifiedAbiSource({ db })
  await db.raw('alter table verified_contracts rename to verified_contracts_away')
  try {
    await t.rejects(source.abiFor(address(11)))
  } finally {
    await db.raw('alter table verified_contracts_away rename to verified_contracts')
  }
  t.match(await source.abiFor(address(11)), { name: 'Contract11' })
})

t.test('abiFor(): a contract whose code, metadata aside, is a verified contract\'s decodes by that ABI, unnamed; the full match is preferred', async (t) => {
  const TWIN_ABI = [{ type: 'function', name: 'twin', inputs: [], outputs: [], stateMutability: 'nonpayable' }]
  // Contracts 20 to 22 share one program, each with its own metadata tail (a CBOR map and its length): two verified (a partial first), 22 not.
  const program = '6001600155'
  const withMetadata = (i: number) => program + 'a1' + i.toString(16).padStart(2, '0') + '00' + '0003'
  await db.raw('insert into addresses (hash, contract_code) values (?, ?), (?, ?), (?, ?)',
    [20, 21, 22].flatMap((i) => [Buffer.from(address(i).slice(2), 'hex'), Buffer.from(withMetadata(i), 'hex')]))
  t.same(runtimeCodeHash(withMetadata(22)), runtimeCodeHash(program), 'the tail is not hashed')
  await storeVerifiedContract(db, verifiedRow(20, { abi: [], matchType: 'partial', runtimeCodeHash: runtimeCodeHash(program) }))
  await storeVerifiedContract(db, verifiedRow(21, { abi: TWIN_ABI, runtimeCodeHash: runtimeCodeHash(program) }))
  const source = createVerifiedAbiSource({ db })
  t.same(await source.abiFor(address(22)), { name: null, abi: TWIN_ABI, implementation: null }, 'the full match\'s ABI, without its name')
  t.same(await source.abiFor(address(20)), { name: 'Contract20', abi: [], implementation: null }, 'a verified contract decodes by its own ABI')
  t.equal(await source.abiFor(address(10)), null, 'other code has no twin')
})

t.test('verifiedTable(): every verified ABI\'s fragments, read once, then only the rows verified since', async (t) => {
  const source = createVerifiedAbiSource({ db })
  const selector = (signature: string) => id(signature).slice(0, 10)
  const table = await source.verifiedTable()
  t.same(table.functions(selector('poke()')).map((f) => f.format('sighash')), ['poke()'], 'poke(), which several verified ABIs hold, once')
  const bump = { type: 'function', name: 'bump', inputs: [{ name: 'by', type: 'uint256' }], outputs: [], stateMutability: 'nonpayable' }
  const moved = { type: 'event', name: 'Moved', anonymous: false, inputs: [{ name: 'who', type: 'address', indexed: true }, { name: 'by', type: 'uint256', indexed: false }] }
  await storeVerifiedContract(db, verifiedRow(30, { abi: [bump, moved, { type: 'fallback', stateMutability: 'payable' }, { type: 'future-kind' }] }))
  t.same((await source.verifiedTable()).functions(selector('bump(uint256)')), [], 'not yet: the verified rows are read again after forget() or the TTL')
  source.forget()
  const sql = await queriesDuring(async () => {
    const extended = await source.verifiedTable()
    t.same(extended.functions(selector('bump(uint256)')).map((f) => f.format('full')), ['function bump(uint256 by)'])
    t.same(extended.events(id('Moved(address,uint256)')).map((e) => e.format('full')), ['event Moved(address indexed who, uint256 by)'])
  })
  t.equal(sql.filter((q) => /abi from verified_contracts where id >/.test(q)).length, 1, 'the new row\'s ABI only')
})

t.test('abiFor(): an answer read across forget() is not kept', async (t) => {
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  const asked: string[] = []
  const proxies: ProxyDetector = { detect: async (a) => { asked.push(a); await gate; return undefined } }
  const source = createVerifiedAbiSource({ db, proxies })
  const reading = source.abiFor(address(12))
  while (asked.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
  source.forget()
  release()
  t.match(await reading, { name: 'Contract12' })
  t.match(await source.abiFor(address(12)), { name: 'Contract12' })
  t.equal(asked.length, 2, 'read again')
  t.match(await source.abiFor(address(12)), { name: 'Contract12' })
  t.equal(asked.length, 2, 'and kept this time')
})

t.test('abiFor(): callers asking one address together share one read of it', async (t) => {
  const proxies = proxyTo(address(11))
  const source = createVerifiedAbiSource({ db, proxies })
  await source.abiFor(address(13))
  const sql = await queriesDuring(async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, async () => await source.abiFor(address(10))))
    for (const answer of answers) t.match(answer, { name: null, implementation: { name: 'Contract11' } })
  })
  t.equal(sql.filter((q) => /from addresses where hash/.test(q)).length, 1, 'its code read once')
  t.same(proxies.asked, [address(10)], 'its proxy slots looked up once')
})
