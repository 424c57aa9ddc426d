// What every query reads through: knex for statements built per request, and
// the prepared-statement pool for the hot reads (prepared.ts says why). Passed
// explicitly, from createQueries (index.ts), never found through a module's state.
import type { Knex } from 'knex'
import type { PreparedStatements } from './prepared.ts'

export type QueryDb = { knex: Knex, prepared: PreparedStatements }
