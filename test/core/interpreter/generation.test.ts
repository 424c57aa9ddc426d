// The interpreter and the shared summary cache's generation: the instance
// that stores a verification bumps it, perhaps before its notice reaches
// another instance. The first request there to read the new generation makes
// the instance forget its decodings and names (so no summary made from them
// is kept under the new generation), and a summary made from facts read
// before a bump is not written at all.
import t from 'tap'
import pino from 'pino'
import { openDatabase } from '../../../core/db/index.ts'
import { createQueries } from '../../../core/queries/index.ts'
import { storeBlocks } from '../../../core/indexer/store.ts'
import { createDecoder } from '../../../core/decode/index.ts'
import { createVerifiedAbiSource } from '../../../core/verify/abi-source.ts'
import { storeVerifiedContract } from '../../../core/verify/store.ts'
import { bumpInterpretationGeneration, createInterpreter } from '../../../core/interpreter/index.ts'
import { readCachedSummaries, writeCachedSummaries } from '../../../core/interpreter/cache.ts'
import { DEFAULT_SHAPE, TOKEN_ADDRESS, generateBlock } from '../../../scripts/bench/rest/generate.ts'
import { createTestDatabase } from '../../support/database.ts'
import { verifiedRow } from '../../support/verified-rows.ts'

const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '', log: pino({ level: 'warn' }) })
t.teardown(async () => await database.close())
const db = database.knex
const queries = createQueries({ knex: db })
await storeBlocks(db, [0, 1, 2, 3].map((n) => generateBlock(n, { ...DEFAULT_SHAPE, blocks: 3 })))
const { rows: [transfer] } = await db.raw('select \'0x\' || encode(transaction_hash, \'hex\') as hash from token_transfers limit 1')
const { rows: [other] } = await db.raw('select \'0x\' || encode(hash, \'hex\') as hash from transactions where hash <> ? limit 1', [Buffer.from(transfer.hash.slice(2), 'hex')])

t.test('interpretation(): a generation bumped elsewhere makes this instance read verified names again at once', async (t) => {
  const interpreter = createInterpreter({ db, queries, decoder: createDecoder({ abiSource: createVerifiedAbiSource({ db }) }), coinSymbol: 'ETH' })
  const token = async () => (await interpreter.interpretation(transfer.hash))!.addresses.find((a) => a.hash.toLowerCase() === TOKEN_ADDRESS)
  t.match(await token(), { name: 'Bench Token', is_verified: false })
  // What another instance does on verifying the token; its notice has not arrived here (the source keeps answers 10 s).
  await storeVerifiedContract(db, verifiedRow(1, { address: TOKEN_ADDRESS, name: 'VerifiedBench' }))
  await bumpInterpretationGeneration(db)
  t.match(await token(), { name: 'VerifiedBench', is_verified: true })
  // The token's creation: its summaries name the contract.
  const kept = (await readCachedSummaries(db, transfer.hash)).summaries
  t.match(JSON.stringify(kept), /"name":"VerifiedBench","is_contract":true,"is_verified":true/, 'kept under the new generation, naming the verified contract')
  t.same(await interpreter.summaries(transfer.hash), kept)
})

t.test('writeCachedSummaries() writes nothing for a generation no longer current', async (t) => {
  const stale = [{ summary_template: 'stale', summary_template_variables: {} }]
  const { summaries, generation } = await readCachedSummaries(db, other.hash)
  t.equal(summaries, undefined)
  await bumpInterpretationGeneration(db)
  await writeCachedSummaries(db, other.hash, stale, [], generation)
  const { rows } = await db.raw('select 1 from transaction_interpretations where transaction_hash = ?', [Buffer.from(other.hash.slice(2), 'hex')])
  t.equal(rows.length, 0, 'made before the bump: not written')
  const current = await readCachedSummaries(db, other.hash)
  await writeCachedSummaries(db, other.hash, stale, [], current.generation)
  t.same((await readCachedSummaries(db, other.hash)).summaries, stale)
})
