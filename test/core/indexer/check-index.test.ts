// verifyIndex() on a real Geth and PostgreSQL: silent on a healthy index, one
// line per kind of damage, the same answer whatever the range size.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { build } from '../../helper.ts'
import { sealBlocks, writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { compareBlock, formatMismatch, verifyIndex, type Mismatch } from '../../../core/indexer/check-index.ts'

const { wallets, allocFile } = await writeFundedAlloc(t, 4)
const { app } = await build(t, { GENESIS_ALLOC: allocFile })
const db = app.db.knex
const rpc = app.geth.rpc
await sealBlocks({ rpc, wallets, rounds: 12 })
const head = await waitForIndexed(app)
// Nothing writes while the index is damaged and checked.
await app.indexer.stop()

const summary = (mismatches: Mismatch[]) => mismatches.map((m) => `${m.block} ${m.kind}`)

t.test('verifyIndex() finds no mismatch on a healthy index, checking every block', async (t) => {
  const checked: number[] = []
  const report = await verifyIndex({ db, rpc, from: 0, to: head, batchBlocks: 4, onProgress: (n) => checked.push(n) })
  t.same(report.mismatches, [])
  t.equal(report.blocks, head + 1)
  t.equal(checked.at(-1), head, 'the last range ends at the head')
  t.same(checked, [...checked].sort((a, b) => a - b), 'ranges are compared in order')
})

t.test('verifyIndex() reports each kind of damage on its own line', async (t) => {
  const used = new Set([head, head - 1])
  const pick = async (what: string, numbers: Promise<unknown[]>): Promise<number> => {
    const n = (await numbers).map(Number).find((b) => !used.has(b))
    if (n === undefined) throw new Error(`no block with ${what}`)
    used.add(n)
    return n
  }
  const statusAt = await pick('a failed transaction', db('transactions').where('status', 0).orderBy('block_number').pluck('block_number'))
  const logAt = await pick('logs', db('logs').distinct('block_number').orderBy('block_number').pluck('block_number'))
  const txAt = await pick('two transactions', db('transactions').groupBy('block_number').havingRaw('count(*) >= 2').orderBy('block_number').pluck('block_number'))
  const hashAt = await pick('a block', db('blocks').orderBy('number').pluck('number'))
  const parentAt = await pick('a block', db('blocks').orderBy('number').pluck('number'))

  const failed = await db('transactions').where({ block_number: statusAt, status: 0 }).first('hash')
  await db('transactions').where('hash', failed.hash).update({ status: 1 })
  await db('logs').where({ block_number: logAt }).whereIn('log_index', db('logs').where('block_number', logAt).max('log_index')).delete()
  const dropped = await db('transactions').where({ block_number: txAt }).orderBy('transaction_index', 'desc').first('hash')
  await db('transactions').where('hash', dropped.hash).delete()
  await db('blocks').where('number', hashAt).update({ hash: randomBytes(32) })
  await db('blocks').where('number', parentAt).update({ parent_hash: randomBytes(32) })
  const missingAt = head - 1
  await db('blocks').where('number', missingAt).delete()
  const top = await db('blocks').where('number', head).first()
  await db('blocks').insert({ ...top, number: head + 2, hash: randomBytes(32) })

  const expected = [
    `${statusAt} status`, `${logAt} logs`, `${txAt} transactions`, `${hashAt} hash`, `${parentAt} parent_hash`,
    `${missingAt} missing`, `${head + 2} unknown`
  ].sort(byBlock)
  const seen: Mismatch[] = []
  const report = await verifyIndex({ db, rpc, from: 0, to: head + 2, onMismatch: (m) => seen.push(m) })
  t.same(summary(report.mismatches), expected, 'one mismatch per damage, in block order')
  t.same(seen, report.mismatches, 'each one reported as found')
  for (const batchBlocks of [1, 3]) {
    t.same(summary((await verifyIndex({ db, rpc, from: 0, to: head + 2, batchBlocks })).mismatches), expected, `the same with ${batchBlocks}-block ranges`)
  }
  const lines = report.mismatches.map(formatMismatch)
  t.match(lines.find((l) => l.startsWith(`block ${statusAt}:`)), `transaction 0x${failed.hash.toString('hex')} has status 1 in the index, 0 on the node`)
  t.match(lines.find((l) => l.startsWith(`block ${txAt}:`)), `not indexed: 0x${dropped.hash.toString('hex')}`)
  t.match(lines.find((l) => l.startsWith(`block ${missingAt}:`)), 'not in the index')
  t.match(lines.find((l) => l.startsWith(`block ${head + 2}:`)), 'the node has no block')

  // Every stretch between damaged blocks, checked on its own, is clean.
  const damaged = new Set(report.mismatches.map((m) => m.block))
  for (let from = 0; from <= head; from++) {
    if (damaged.has(from)) continue
    let to = from
    while (to + 1 <= head && !damaged.has(to + 1)) to++
    t.same((await verifyIndex({ db, rpc, from, to })).mismatches, [], `blocks ${from}..${to} are clean`)
    from = to
  }
})

t.test('compareBlock() names transactions in another order', async (t) => {
  const block = (hashes: string[]) => ({ hash: '0x01', parentHash: '0x00', transactions: hashes.map((hash) => ({ hash, status: 1 })), logCount: 0 }) as never
  const [mismatch] = compareBlock(7, block(['0xaa', '0xbb']), block(['0xbb', '0xaa']))
  t.equal(mismatch?.kind, 'transactions')
  t.match(mismatch?.message, 'in another order from position 0')
  t.same(compareBlock(7, block(['0xaa']), block(['0xaa'])), [])
})

function byBlock (a: string, b: string): number {
  return Number(a.split(' ')[0]) - Number(b.split(' ')[0])
}
