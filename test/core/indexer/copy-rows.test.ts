// copyRows writes every column type the store sends through COPY's text
// format and reads back exactly what it was given: text with the characters
// COPY treats specially, nulls beside the text "\N", bytea (empty too),
// timestamps from seconds, ragged integer arrays, numerics beyond 64 bits.
import t from 'tap'
import pino from 'pino'
import { openDatabase } from '../../../core/db/index.ts'
import { copyRows, type Columns } from '../../../core/indexer/copy-rows.ts'
import { createTestDatabase } from '../../support/database.ts'

const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '', log: pino({ level: 'warn' }) })
t.teardown(async () => await database.close())
const db = database.knex

type Row = { id: number, name: string | null, data: string | null, at: number, path: number[], amount: string, small: number, big: string }
const COLUMNS: Columns<Row> = [
  ['id', 'integer'], ['name', 'text'], ['data', 'bytea'], ['at', 'timestamptz'], ['path', 'integer[]'],
  ['amount', 'numeric'], ['small', 'smallint'], ['big', 'bigint']
]

await db.raw(`create table copied (id integer primary key, name text, data bytea, at timestamptz not null,
  path integer[] not null, amount numeric(78,0) not null, small smallint not null, big bigint not null)`)

t.test('every value comes back as written', async (t) => {
  const rows: Row[] = [
    { id: 1, name: 'tab\there, newline\nthere, return\r, backslash \\ and \\N', data: '0x00ff10', at: 1_700_000_000, path: [], amount: (2n ** 255n).toString(), small: 2, big: '9007199254740993' },
    { id: 2, name: '\\N', data: '0x', at: 0, path: [0, 3, 12], amount: '0', small: -1, big: '-5' },
    { id: 3, name: null, data: null, at: 1, path: [7], amount: '1', small: 0, big: '0' },
    { id: 4, name: 'execution reverted: "quoted", {braces}, ünïcödé', data: '0xdeadbeef', at: 86_400, path: [1], amount: '42', small: 1, big: '1' }
  ]
  await db.transaction(async (trx) => await copyRows(trx, 'copied', COLUMNS, rows))
  const stored = await db('copied').orderBy('id').select('id', 'name', 'data', db.raw('extract(epoch from at)::bigint::text as at'), 'path', 'amount', 'small', 'big')
  t.same(stored.map((r) => ({
    id: r.id,
    name: r.name,
    data: r.data === null ? null : `0x${(r.data as Buffer).toString('hex')}`,
    at: Number(r.at),
    path: r.path,
    amount: r.amount,
    small: r.small,
    big: r.big
  })), rows)
})

t.test('no rows: nothing is sent', async (t) => {
  await db.transaction(async (trx) => await copyRows(trx, 'copied', COLUMNS, []))
  t.equal(Number((await db('copied').count({ n: '*' }).first())?.n), 4)
})

t.test('a failing row fails the copy and leaves nothing of it behind', async (t) => {
  const duplicate = { id: 1, name: 'again', data: null, at: 0, path: [], amount: '0', small: 0, big: '0' }
  const fresh = { ...duplicate, id: 5 }
  await t.rejects(db.transaction(async (trx) => await copyRows(trx, 'copied', COLUMNS, [fresh, duplicate])), { code: '23505' })
  t.equal(await db('copied').where({ id: 5 }).first(), undefined)
  // The connection went back to the pool usable.
  t.equal(Number((await db('copied').count({ n: '*' }).first())?.n), 4)
})
