// The Stats API's daily sums (stats_daily, one row a UTC day) and each day's
// senders (stats_day_senders), kept in the store's own transactions: a batch
// adds its blocks' share after its rows are written, and a reorg takes the
// removed blocks' share out before they are deleted. Nothing is recounted
// but the account figures of the days touched, from the senders table.
//
// A batch's share is one statement (the sums, the senders and the account
// figures), prepared once per connection (runAdd).
import type { Knex } from 'knex'
import type { Hex } from '../rows.ts'

/** The additive columns of stats_daily, each the sum of one expression per row of a part below. */
export const DAILY_SUMS = [
  'blocks', 'block_size', 'gas_used', 'gas_limit', 'burnt_fees', 'transactions', 'successful_transactions',
  'fees', 'gas_price_sum', 'native_coin_transfers', 'new_contracts', 'new_addresses', 'new_tokens',
  'native_coin_holders', 'native_coin_supply'
] as const
type DailySum = typeof DAILY_SUMS[number]
/** Columns a batch adds to; a reorg and a rebuild count them again from the senders (recountAccounts). */
const ACCOUNT_SUMS = ['active_accounts', 'new_accounts'] as const
type AccountSum = typeof ACCOUNT_SUMS[number]
export const DAILY_COLUMNS = [...DAILY_SUMS, ...ACCOUNT_SUMS] as const

/** The upper bound of a range "from this block up". */
const NO_END = '9223372036854775807'
/** Burnt coins are not supplied: the service leaves the zero address out of the supply. */
const ZERO_ADDRESS = `'\\x${'00'.repeat(20)}'::bytea`

/**
 * Common table expressions over the blocks $1..$2: their days, and each
 * address's balance at the end of each of those days with the balance it had
 * before $1 (none: the address is new). With `known`, the balances before $1
 * the store already holds ($3 addresses, $4 values: the indexer's cache of
 * latest balances) are taken as they are, and only the other addresses are
 * looked up in coin_balances: a look-up per address was most of a block's
 * share (bench:stats).
 */
const rangeCtes = (known: boolean): string => `
  days as materialized (
    select number, (timestamp at time zone 'UTC')::date as day, size, gas_used, gas_limit, base_fee_per_gas from blocks where number between $1 and $2
  ), day_ends as (
    select distinct on (c.address, d.day) c.address, d.day, c.value
    from coin_balances c join days d on d.number = c.block_number
    where c.block_number between $1 and $2
    order by c.address, d.day, c.block_number desc
  ), balance_changes as (
    select e.day, e.address, e.value, coalesce(lag(e.value) over w, ${known ? 'k.value, ' : ''}b.value, 0) as before,
      lag(e.value) over w is null and ${known ? 'k.value is null and ' : ''}b.value is null as is_new
    from day_ends e
    ${known ? 'left join unnest($3::bytea[], $4::numeric[]) as k(address, value) on k.address = e.address' : ''}
    left join lateral (select p.value from coin_balances p where p.address = e.address and p.block_number < $1${known ? ' and k.address is null' : ''}
      order by p.block_number desc limit 1) b on true
    window w as (partition by e.address order by e.day)
  )`

/**
 * What each table brings to a day, for the blocks $1..$2: aggregates per day
 * of each part's own columns (summed over the parts after), so that no row
 * carries the other parts' zeros through the sums.
 */
const PARTS: Array<{ sql: string, sums: Partial<Record<DailySum | AccountSum, string>> }> = [
  {
    sql: 'from days b',
    sums: { blocks: 'count(*)', block_size: 'sum(b.size)', gas_used: 'sum(b.gas_used)', gas_limit: 'sum(b.gas_limit)', burnt_fees: 'sum(coalesce(b.base_fee_per_gas, 0) * b.gas_used)' }
  },
  {
    sql: 'from transactions t join days b on b.number = t.block_number where t.block_number between $1 and $2',
    sums: {
      transactions: 'count(*)',
      successful_transactions: 'count(*) filter (where t.status = 1)',
      fees: 'sum(t.gas_used * t.effective_gas_price)',
      gas_price_sum: 'sum(t.effective_gas_price)',
      native_coin_transfers: 'count(*) filter (where t.value > 0)',
      new_contracts: 'count(*) filter (where t.created_contract is not null and t.status = 1)'
    }
  },
  {
    // Contracts created by contracts: the top frame's creation is the transaction's own, counted above.
    sql: `from internal_transactions i join days b on b.number = i.block_number
      where i.block_number between $1 and $2 and i.created_contract is not null and cardinality(i.trace_address) > 0`,
    sums: { new_contracts: 'count(*)' }
  },
  {
    // An address is new on the day of its first coin balance row: every address the index knows has one.
    sql: 'from balance_changes b',
    sums: {
      new_addresses: 'count(*) filter (where b.is_new)',
      native_coin_holders: 'count(*) filter (where b.value > 0 and b.before = 0) - count(*) filter (where b.value = 0 and b.before > 0)',
      native_coin_supply: `coalesce(sum(b.value - b.before) filter (where b.address <> ${ZERO_ADDRESS}), 0)`
    }
  },
  {
    sql: 'from tokens k join days b on b.number = k.first_block where k.first_block between $1 and $2',
    sums: { new_tokens: 'count(*)' }
  }
]

/**
 * A batch's senders: a (day, sender) pair not yet kept is one more active
 * account that day, and a new account when the sender has no earlier day,
 * kept or in the batch. The insert tells which pairs it added (a row it
 * inserted has no xmax; one it updated has its own), and the rest of the
 * statement reads the senders as they were before it (one snapshot).
 */
const SENDER_CTES = `
  sender_pairs as (
    select b.day, t."from" as address, count(*) as transactions
    from transactions t join days b on b.number = t.block_number where t.block_number between $1 and $2 group by 1, 2
  ), stored_senders as (
    insert into stats_day_senders (day, address, transactions) select day, address, transactions from sender_pairs
    on conflict (day, address) do update set transactions = stats_day_senders.transactions + excluded.transactions
    returning day, address, xmax = 0 as inserted
  )`
const SENDERS_PART = {
  sql: 'from stored_senders b where b.inserted',
  sums: {
    active_accounts: 'count(*)',
    new_accounts: `count(*) filter (where not exists (select 1 from stats_day_senders e where e.address = b.address and e.day < b.day)
      and not exists (select 1 from sender_pairs e where e.address = b.address and e.day < b.day))`
  }
}

/**
 * The statement adding (1) or taking out (-1) the share of the blocks $1..$2,
 * per day; with `senders`, their senders and account figures too, and the
 * balances known before $1 ($3, $4) taken from the caller.
 */
function shiftStatement (sign: 1 | -1, senders: boolean): string {
  const columns: ReadonlyArray<DailySum | AccountSum> = senders ? DAILY_COLUMNS : DAILY_SUMS
  const parts = senders ? [...PARTS, SENDERS_PART] : PARTS
  const union = parts.map(({ sql, sums }) =>
    `select b.day, ${columns.map((c) => `(${sums[c as keyof typeof sums] ?? '0'})::numeric as ${c}`).join(', ')} ${sql} group by b.day`).join('\n  union all ')
  return `
    with ${rangeCtes(senders)}${senders ? `, ${SENDER_CTES}` : ''}
    insert into stats_daily (day, ${columns.join(', ')})
    select day, ${columns.map((c) => `${sign} * sum(${c})`).join(', ')} from (${union}) p group by day
    on conflict (day) do update set ${columns.map((c) => `${c} = stats_daily.${c} + excluded.${c}`).join(', ')}`
}

const ADD = shiftStatement(1, true)
const TAKE_OUT = shiftStatement(-1, false)
/** The rebuild's: the sums of every block; the senders are filled and counted apart, in bulk. */
const FILL = shiftStatement(1, false)

type PgClient = { query (text: string, values?: unknown[]): Promise<unknown> }

/** The name the adding statement is prepared under on each connection (PREPARE: SQL's, which EXECUTE can run in a batch of statements). */
const ADD_STATEMENT = 'stats_daily_add'
/** Connections the adding statement is prepared on. */
const prepared = new WeakSet<object>()

/** Runs `work` on the transaction's own connection. */
async function onConnection<T> (trx: Knex.Transaction, work: (client: PgClient) => Promise<T>): Promise<T> {
  const client = await trx.client.acquireConnection() as PgClient
  try {
    return await work(client)
  } finally {
    await trx.client.releaseConnection(client)
  }
}

/** Balances known before a batch, as the adding statement's array literals (hex and digits only: nothing to escape). */
function knownLiterals (known: ReadonlyMap<Hex, string>): [addresses: string, values: string] {
  const addresses: string[] = []
  const values: string[] = []
  for (const [address, value] of known) {
    if (!/^0x[0-9a-fA-F]*$/.test(address) || !/^\d+$/.test(value)) throw new Error(`not an address and a balance: ${address} ${value}`)
    addresses.push(`"\\\\x${address.slice(2)}"`)
    values.push(value)
  }
  return [`'{${addresses.join(',')}}'`, `'{${values.join(',')}}'`]
}

/**
 * Runs the adding statement, prepared once per connection and run with its
 * generic plan: a plan for any range of blocks, made once. The planner would
 * otherwise plan it again for each batch (a custom plan beats the generic
 * one's estimate of a range), and that planning cost about three times its
 * execution for a block of 200 transactions. The setting is the
 * transaction's, for this one statement; the blocks are whole numbers.
 */
async function runAdd (trx: Knex.Transaction, from: number, to: number, known: ReadonlyMap<Hex, string>): Promise<void> {
  const [addresses, values] = knownLiterals(known)
  await onConnection(trx, async (client) => {
    if (!prepared.has(client)) {
      await client.query(`prepare ${ADD_STATEMENT} (bigint, bigint, bytea[], numeric[]) as ${ADD}`)
      prepared.add(client)
    }
    await client.query(`set local plan_cache_mode = force_generic_plan;
      execute ${ADD_STATEMENT} (${Math.trunc(from)}, ${Math.trunc(to)}, ${addresses}, ${values});
      set local plan_cache_mode to default`)
  })
}

/** The senders of the blocks from `from` up, added (1) or taken out (-1) of stats_day_senders. */
async function shiftSenders (trx: Knex.Transaction, from: number, sign: 1 | -1): Promise<void> {
  await trx.raw(`
    insert into stats_day_senders (day, address, transactions)
    select (b.timestamp at time zone 'UTC')::date, t."from", ${sign} * count(*)
    from transactions t join blocks b on b.number = t.block_number where t.block_number >= ? group by 1, 2
    on conflict (day, address) do update set transactions = stats_day_senders.transactions + excluded.transactions`, [from])
  if (sign < 0) {
    await trx.raw('delete from stats_day_senders where transactions <= 0')
    await trx.raw('delete from stats_daily where blocks <= 0')
  }
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
    "select to_char((timestamp at time zone 'UTC')::date, 'YYYY-MM-DD') as day from blocks where number >= ? order by number limit 1", [number])
  return rows[0]?.day
}

/**
 * Blocks from..to are written: adds their share. In the store's transaction.
 * `known`: balances the store knows addresses had before `from` (any subset;
 * the others are looked up).
 */
export async function addDailyStats (trx: Knex.Transaction, from: number, to: number, known: ReadonlyMap<Hex, string> = new Map()): Promise<void> {
  await runAdd(trx, from, to, known)
}

/** Blocks from `from` up are about to be deleted: takes their share out. In the deleting transaction. */
export async function takeOutDailyStats (trx: Knex.Transaction, from: number): Promise<void> {
  const day = await readDayOf(trx, from)
  if (day === undefined) return
  await onConnection(trx, async (client) => await client.query(TAKE_OUT, [from, NO_END]))
  await shiftSenders(trx, from, -1)
  // Taken out at the top too, but a day's accounts cannot be told apart by block: its days are counted again.
  await recountAccounts(trx, day)
}

export type DailyRow = { day: string } & Record<DailySum | AccountSum, string>

export async function readDailyRows (db: Knex | Knex.Transaction): Promise<DailyRow[]> {
  const { rows } = await db.raw<{ rows: DailyRow[] }>(
    `select to_char(day, 'YYYY-MM-DD') as day, ${DAILY_COLUMNS.map((c) => `${c}::text as ${c}`).join(', ')} from stats_daily order by day`)
  return rows
}

/** Everything computed again from the indexed tables (the migration's fill, `ops stats rebuild`). */
export async function rebuildDailyStats (trx: Knex.Transaction): Promise<void> {
  await trx.raw('delete from stats_daily')
  await trx.raw('delete from stats_day_senders')
  await onConnection(trx, async (client) => await client.query(FILL, [0, NO_END]))
  await shiftSenders(trx, 0, 1)
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
      for (const column of DAILY_COLUMNS) {
        if (old?.[column] !== now?.[column]) differences.push({ day, column, incremental: old?.[column], rebuilt: now?.[column] })
      }
    }
    return { days: after.size, differences }
  })
}
