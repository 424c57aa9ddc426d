// What the stats readers need of the database: knex only. createQueries
// (core/queries) hands them its QueryDb, which has it; typed here so that
// core/stats does not import core/queries, which imports it.
import type { Knex } from 'knex'

export type StatsDb = { knex: Knex }
