// loadFacts() names every address a transaction touches, and asks the ABI
// source (verification's store: a query or more for an address it has not
// seen lately) only about those with code: an account cannot be verified.
import t from 'tap'
import pino from 'pino'
import { openDatabase } from '../../../core/db/index.ts'
import { createQueries } from '../../../core/queries/index.ts'
import { storeBlocks } from '../../../core/indexer/store.ts'
import { createDecoder, type VerifiedAbi } from '../../../core/decode/index.ts'
import { loadFacts } from '../../../core/interpreter/facts.ts'
import { DEFAULT_SHAPE, TOKEN_ADDRESS, generateBlock } from '../../../scripts/bench/rest/generate.ts'
import { createTestDatabase } from '../../support/database.ts'

const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '', log: pino({ level: 'warn' }) })
t.teardown(async () => await database.close())
const db = database.knex
const queries = createQueries({ knex: db })
const shape = { ...DEFAULT_SHAPE, blocks: 3 }
await storeBlocks(db, [0, 1, 2, 3].map((n) => generateBlock(n, shape)))

t.test('loadFacts(): a token transfer names its accounts without asking the ABI source about them; the token is asked about and named', async (t) => {
  const { rows } = await db.raw('select distinct transaction_hash from token_transfers limit 1')
  t.equal(rows.length, 1, 'the generated chain holds a token transfer')
  const asked: string[] = []
  const named: VerifiedAbi = { name: 'NamedToken', abi: [] }
  const decoder = createDecoder({ abiSource: { abiFor: async (address) => { asked.push(address); return address === TOKEN_ADDRESS ? named : null } } })
  const loaded = await loadFacts(queries, decoder, rows[0].transaction_hash, 'ETH')
  const addresses = [...loaded!.facts.addresses.values()]
  t.ok(addresses.filter((a) => !a.is_contract).length >= 2, 'sender and recipient are accounts')
  t.same([...new Set(asked)], [TOKEN_ADDRESS], 'only the contract is asked about')
  t.match(loaded!.facts.addresses.get(TOKEN_ADDRESS), { name: 'NamedToken', is_contract: true, is_verified: true })
  t.ok(addresses.filter((a) => !a.is_contract).every((a) => a.is_verified === false))
})
