// GraphQL errors speak of what the client wrote: a validation error about a
// field or argument written in snake_case names it so (the gateway renames it
// to camelCase before validating, and the message used to name the camelCase
// field the client never wrote), and node(id:) with a well-formed id of a
// known type that names nothing stored answers Blockscout's "... not found."
// rather than "Unknown node". Over an empty database; no node is needed.
import t from 'tap'
import pino from 'pino'
import { loadConfig } from '../../../core/config.ts'
import { openDatabase } from '../../../core/db/index.ts'
import { startApiServer } from '../../../scripts/bench/graphql/server.ts'
import { createTestDatabase } from '../../support/database.ts'
import { postGraphql } from '../../support/graphql.ts'

const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '', log: pino({ level: 'warn' }) })
t.teardown(async () => await database.close())
const config = loadConfig({ ...process.env, GETH_RPC_URL: '', DATA_DIR: '.' })
const server = await startApiServer(database, config.graphql)
t.teardown(async () => await server.close())
const gql = async (query: string) => (await postGraphql(server.app, query)).body
const messages = (answer: { errors?: Array<{ message: string }> }): string[] => (answer.errors ?? []).map((e) => e.message)

t.test('validation errors name fields and arguments as the query spelled them', async (t) => {
  const cases: Array<[string, string]> = [
    ['{ block(number: 1) { no_such_field } }', 'Cannot query field "no_such_field" on type "Block".'],
    ['{ block(number: 1) { noSuchField } }', 'Cannot query field "noSuchField" on type "Block".'],
    ['{ block(number: 1) { parent_hash { hash } } }', 'Field "parent_hash" must not have a selection since type "FullHash" has no subfields.'],
    [`{ transaction(hash: "0x${'00'.repeat(32)}") { from_address } }`, 'Field "from_address" of type "Address" must have a selection of subfields. Did you mean "from_address { ... }"?'],
    ['{ block(number: 1, no_such_arg: 2) { hash } }', 'Unknown argument "no_such_arg" on field "Query.block".'],
    ['{ token_transfers(token_contract_address_hash: "0x0000000000000000000000000000000000000000", first: 1, first: 2) { page_info { has_next_page } } }', 'There can be only one argument named "first".']
  ]
  for (const [query, message] of cases) {
    const body = await gql(query)
    t.same(body.errors?.map((e) => [e.message, e.extensions?.code]), [[message, 'GRAPHQL_VALIDATION_FAILED']], query)
  }
  const renamedTwice = await gql('{ block(number: 1) { gas_usedd no_such_field } }')
  t.same(messages(renamedTwice), ['Cannot query field "gas_usedd" on type "Block". Did you mean "gasUsed"?', 'Cannot query field "no_such_field" on type "Block".'],
    'each error names its own field; suggestions keep the schema\'s names')
})

const id = (type: string, local: unknown): string => Buffer.from(`${type}:${typeof local === 'string' ? local : JSON.stringify(local)}`).toString('base64')
const HASH = `0x${'ab'.repeat(32)}`

t.test('node(id) of a known type that is not stored answers as Blockscout; an unknown or malformed id answers "Unknown node"', async (t) => {
  const cases: Array<[string, string]> = [
    [id('Transaction', HASH), 'Transaction not found.'],
    [id('InternalTransaction', { index: 0, transaction_hash: HASH }), 'Internal transaction not found.'],
    [id('TokenTransfer', { block_hash: HASH, log_index: 3, transaction_hash: HASH }), 'Token transfer not found.'],
    [id('Block', '1'), 'Unknown node'],
    [id('Transaction', '0x12'), 'Unknown node'],
    [id('InternalTransaction', { index: 'x', transaction_hash: HASH }), 'Unknown node'],
    [id('TokenTransfer', 'null'), 'Unknown node'],
    ['not base64 at all', 'Unknown node']
  ]
  for (const [nodeId, message] of cases) {
    const answer = await gql(`{ node(id: "${nodeId}") { id } }`)
    t.same(answer, { data: { node: null }, errors: [{ message, locations: [{ line: 1, column: 3 }], path: ['node'], extensions: { code: 'NOT_FOUND' } }] }, `${Buffer.from(nodeId, 'base64').toString()}: ${message}`)
  }
})
