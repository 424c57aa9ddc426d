// The Stats API's daily sums (stats_daily, one row a UTC day) and each day's
// senders (stats_day_senders), kept in the store's own transactions: a batch
// adds its blocks' share after its rows are written, and a reorg takes the
// removed blocks' share out before they are deleted. Nothing is recounted
// but the account figures of the days touched, from the senders table.
import type { Knex } from 'knex'

/** The additive columns of stats_daily, each the sum of one expression per row of a part below. */
export const DAILY_SUMS = [
  'blocks', 'block_size', 'gas_used', 'gas_limit', 'burnt_fees', 'transactions', 'successful_transactions',
  'fees', 'gas_price_sum', 'native_coin_transfers', 'new_contracts', 'new_addresses', 'new_tokens'
] as const
type DailySum = typeof DAILY_SUMS[number]

const DAY = (timestamp: string) => `(${timestamp} at time zone 'UTC')::date`

/**
 * What each table brings to a day, for the rows whose block matches `range`
 * (a condition on a column named block_number; one binding each part).
 */
function parts (range: (column: string) => string): Array<{ sql: string, sums: Partial<Record<DailySum, string>> }> {
  return [
    {
      sql: `from blocks b where ${range('b.number')}`,
      sums: { blocks: '1', block_size: 'b.size', gas_used: 'b.gas_used', gas_limit: 'b.gas_limit', burnt_fees: 'coalesce(b.base_fee_per_gas, 0) * b.gas_used' }
    },
    {
      sql: `from transactions t join blocks b on b.number = t.block_number where ${range('t.block_number')}`,
      sums: {
        transactions: '1',
        successful_transactions: '(t.status = 1)::int',
        fees: 't.gas_used * t.effective_gas_price',
        gas_price_sum: 't.effective_gas_price',
        native_coin_transfers: '(t.value > 0)::int',
        new_contracts: '(t.created_contract is not null and t.status = 1)::int'
      }
    },
    {
      // Contracts created by contracts: the top frame's creation is the transaction's own, counted above.
      sql: `from internal_transactions i join blocks b on b.number = i.block_number
        where ${range('i.block_number')} and i.created_contract is not null and cardinality(i.trace_address) > 0`,
      sums: { new_contracts: '1' }
    },
    {
      // An address is new in the block of its first coin balance row: every address the index knows has one.
      // Each address's first row in the range first, then one probe for an earlier row: compared row by row,
      // an address in a tenth of a million-transaction chain's blocks made the rebuild quadratic (bench:stats).
      sql: `from (select address, min(block_number) as block_number from coin_balances where ${range('block_number')} group by address) c
        join blocks b on b.number = c.block_number
        where not exists (select 1 from coin_balances earlier where earlier.address = c.address and earlier.block_number < c.block_number)`,
      sums: { new_addresses: '1' }
    },
    {
      sql: `from tokens k join blocks b on b.number = k.first_block where ${range('k.first_block')}`,
      sums: { new_tokens: '1' }
    }
  ]
}

/** Adds (sign 1) or takes out (-1) the share of the blocks in `range`, per day. */
async function shiftDailySums (trx: Knex.Transaction, range: (column: string) => string, bindings: number[], sign: 1 | -1): Promise<void> {
  const all = parts(range)
  const union = all.map(({ sql, sums }) =>
    `select ${DAY('b.timestamp')} as day, ${DAILY_SUMS.map((c) => `(${sums[c] ?? '0'})::numeric as ${c}`).join(', ')} ${sql}`).join('\n union all ')
  await trx.raw(`
    insert into stats_daily (day, ${DAILY_SUMS.join(', ')})
    select day, ${DAILY_SUMS.map((c) => `${sign} * sum(${c})`).join(', ')} from (${union}) p group by day
    on conflict (day) do update set ${DAILY_SUMS.map((c) => `${c} = stats_daily.${c} + excluded.${c}`).join(', ')}`,
  all.flatMap(() => bindings))
}

/** The (day, sender, transactions) of the blocks in `range`. */
const senderPairs = (range: (column: string) => string): string => `
  select ${DAY('b.timestamp')} as day, t."from" as address, count(*) as transactions
  from transactions t join blocks b on b.number = t.block_number where ${range('t.block_number')} group by 1, 2`

async function shiftSenders (trx: Knex.Transaction, range: (column: string) => string, bindings: number[], sign: 1 | -1): Promise<void> {
  await trx.raw(`
    insert into stats_day_senders (day, address, transactions) select day, address, ${sign} * transactions from (${senderPairs(range)}) p
    on conflict (day, address) do update set transactions = stats_day_senders.transactions + excluded.transactions`, bindings)
  if (sign < 0) {
    await trx.raw('delete from stats_day_senders where transactions <= 0')
    await trx.raw('delete from stats_daily where blocks <= 0')
  }
}

/**
 * Blocks added at the chain's top: a (day, sender) pair not yet kept is one
 * more active account that day, and a new account when the sender has no
 * earlier day, kept or in the batch. Work in proportion to the batch. One
 * statement: the count reads the pairs as they were before the insert beside
 * it (one snapshot for both), and the batch's pairs are grouped once.
 */
async function addSenders (trx: Knex.Transaction, range: (column: string) => string, bindings: number[]): Promise<void> {
  await trx.raw(`
    with batch as (${senderPairs(range)}), fresh as (
      select p.day, p.address from batch p
      where not exists (select 1 from stats_day_senders s where s.day = p.day and s.address = p.address)
    ), counted as (
      update stats_daily d set active_accounts = d.active_accounts + f.active, new_accounts = d.new_accounts + f.new
      from (
        select f.day, count(*) as active, count(*) filter (where
          not exists (select 1 from stats_day_senders e where e.address = f.address and e.day < f.day)
          and not exists (select 1 from batch e where e.address = f.address and e.day < f.day)) as new
        from fresh f group by f.day
      ) f where d.day = f.day
    )
    insert into stats_day_senders (day, address, transactions) select day, address, transactions from batch
    on conflict (day, address) do update set transactions = stats_day_senders.transactions + excluded.transactions`, bindings)
}

/**
 * Active and new accounts of the days from `day` on, from their senders: a
 * sender is new on the first day it sends. Later days are the only ones a
 * change can move, and the store only adds or removes at the chain's top.
 */
async function recountAccounts (trx: Knex.Transaction, day: string): Promise<void> {
  await trx.raw(`
    update stats_daily d set active_accounts = coalesce(s.active, 0), new_accounts = coalesce(s.new, 0)
    from stats_daily x left join (
      select s.day, count(*) as active,
        count(*) filter (where not exists (select 1 from stats_day_senders e where e.address = s.address and e.day < s.day)) as new
      from stats_day_senders s where s.day >= ?::date group by s.day
    ) s on s.day = x.day
    where d.day = x.day and x.day >= ?::date`, [day, day])
}

async function readDayOf (trx: Knex.Transaction, number: number): Promise<string | undefined> {
  const { rows } = await trx.raw<{ rows: Array<{ day: string }> }>(
    `select to_char(${DAY('timestamp')}, 'YYYY-MM-DD') as day from blocks where number >= ? order by number limit 1`, [number])
  return rows[0]?.day
}

/** Blocks from..to are written: adds their share. In the store's transaction. */
export async function addDailyStats (trx: Knex.Transaction, from: number, to: number): Promise<void> {
  const range = (c: string): string => `${c} between ? and ?`
  await shiftDailySums(trx, range, [from, to], 1)
  await addSenders(trx, range, [from, to])
}

/** Blocks from `from` up are about to be deleted: takes their share out. In the deleting transaction. */
export async function takeOutDailyStats (trx: Knex.Transaction, from: number): Promise<void> {
  const day = await readDayOf(trx, from)
  if (day === undefined) return
  await shiftDailySums(trx, (c) => `${c} >= ?`, [from], -1)
  await shiftSenders(trx, (c) => `${c} >= ?`, [from], -1)
  // Taken out at the top too, but a day's accounts cannot be told apart by block: its days are counted again.
  await recountAccounts(trx, day)
}

export type DailyRow = { day: string } & Record<DailySum | 'active_accounts' | 'new_accounts', string>

export async function readDailyRows (db: Knex | Knex.Transaction): Promise<DailyRow[]> {
  const columns = [...DAILY_SUMS, 'active_accounts', 'new_accounts']
  const { rows } = await db.raw<{ rows: DailyRow[] }>(
    `select to_char(day, 'YYYY-MM-DD') as day, ${columns.map((c) => `${c}::text as ${c}`).join(', ')} from stats_daily order by day`)
  return rows
}

/** Everything computed again from the indexed tables (the migration's fill, `ops stats rebuild`). */
export async function rebuildDailyStats (trx: Knex.Transaction): Promise<void> {
  await trx.raw('delete from stats_daily')
  await trx.raw('delete from stats_day_senders')
  await shiftDailySums(trx, (c) => `${c} >= ?`, [0], 1)
  await shiftSenders(trx, (c) => `${c} >= ?`, [0], 1)
  const day = await readDayOf(trx, 0)
  if (day !== undefined) await recountAccounts(trx, day)
}

export type DailyDifference = { day: string, column: string, incremental: string | undefined, rebuilt: string | undefined }

/**
 * Computes every daily row again and keeps the result, returning where the
 * incremental rows differed. The store waits on the table lock meanwhile, so
 * no batch lands between the reading and the rebuilding.
 */
export async function rebuildAndCompareDailyStats (db: Knex): Promise<{ days: number, differences: DailyDifference[] }> {
  return await db.transaction(async (trx) => {
    await trx.raw('lock table stats_daily, stats_day_senders in exclusive mode')
    const before = new Map((await readDailyRows(trx)).map((r) => [r.day, r]))
    await rebuildDailyStats(trx)
    const after = new Map((await readDailyRows(trx)).map((r) => [r.day, r]))
    const differences: DailyDifference[] = []
    for (const day of [...new Set([...before.keys(), ...after.keys()])].sort()) {
      const [old, now] = [before.get(day), after.get(day)]
      for (const column of [...DAILY_SUMS, 'active_accounts', 'new_accounts'] as const) {
        if (old?.[column] !== now?.[column]) differences.push({ day, column, incremental: old?.[column], rebuilt: now?.[column] })
      }
    }
    return { days: after.size, differences }
  })
}
