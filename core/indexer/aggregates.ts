// Running sums kept beside the chain rows: token balances, token holder
// counts and address rows (current balance, nonce, counters, first and last
// seen). applyAggregates adds what blocks from..to brought; before blocks are
// deleted, removeBlocksFrom takes their share back out and recomputes what
// cannot be subtracted (latest balance, nonce), in the caller's transaction.
import type { Knex } from 'knex'
import type { ContractCodeRow } from './types.ts'
import { inlineInteger, runStatements } from '../db/statements.ts'

const ZERO_ADDRESS = "'\\x0000000000000000000000000000000000000000'::bytea"

/** Token balance changes of the transfers in a block range, per holder, token and id (-1 for fungible). */
const tokenDeltas = (range: string) => `
  select token_address, "to" as holder, coalesce(token_id, -1) as token_id, amount as delta
    from token_transfers where ${range} and "to" <> ${ZERO_ADDRESS}
  union all
  select token_address, "from", coalesce(token_id, -1), -amount
    from token_transfers where ${range} and "from" <> ${ZERO_ADDRESS}`

/** Transaction, token transfer and gas counts per address in a block range. */
const counterDeltas = (range: string) => `
  select a, sum(tx) as tx, sum(tt) as tt, sum(gas) as gas from (
    select "from" as a, 1 as tx, 0 as tt, gas_used as gas from transactions where ${range}
    union all select "to", 1, 0, 0 from transactions where ${range} and "to" is not null and "to" <> "from"
    union all select created_contract, 1, 0, 0 from transactions where ${range} and created_contract is not null
    union all select "from", 0, 1, 0 from token_transfers where ${range}
    union all select "to", 0, 1, 0 from token_transfers where ${range} and "to" <> "from"
  ) x group by a`

/** Which of the range's (token, holder) pairs hold a positive balance of any id right now. */
const holdingQuery = (range: string) => `
    select a.token_address, a.holder,
      exists (select 1 from token_balances b where b.token_address = a.token_address and b.holder = a.holder and b.value > 0) as held
    from (select distinct token_address, holder from (${tokenDeltas(range)}) d) a`

type HoldingRow = { token_address: Buffer, holder: Buffer, held: boolean }

const holdingOf = (rows: HoldingRow[]): Map<string, boolean> =>
  new Map(rows.map((r) => [`${r.token_address.toString('hex')}:${r.holder.toString('hex')}`, r.held]))

async function readHolding (trx: Knex.Transaction, range: string, bindings: number[]): Promise<Map<string, boolean>> {
  const { rows } = await trx.raw(holdingQuery(range), [...bindings, ...bindings])
  return holdingOf(rows)
}

/**
 * Adds (or takes out) the range's transfers to token balances and moves each
 * token's holder count by the holders that start or stop holding: work in
 * proportion to the batch, not to the token's holders.
 */
async function shiftTokenBalances (trx: Knex.Transaction, range: string, sign: 1 | -1, bindings: number[], known?: Map<string, boolean>): Promise<void> {
  const before = known ?? await readHolding(trx, range, bindings)
  if (before.size === 0) return
  await trx.raw(`
    insert into token_balances (token_address, holder, token_id, value)
    select token_address, holder, token_id, ${sign} * sum(delta) from (${tokenDeltas(range)}) d group by 1, 2, 3
    on conflict (token_address, holder, token_id) do update set value = token_balances.value + excluded.value`, [...bindings, ...bindings])
  await trx.raw(`delete from token_balances where value = 0 and token_address in (select distinct token_address from token_transfers where ${range})`, bindings)
  const after = await readHolding(trx, range, bindings)
  const change = new Map<string, number>()
  for (const [key, held] of after) {
    const delta = Number(held) - Number(before.get(key) ?? false)
    if (delta !== 0) change.set(key.split(':')[0]!, (change.get(key.split(':')[0]!) ?? 0) + delta)
  }
  if (change.size === 0) return
  await trx.raw(`update tokens set holder_count = holder_count + d.n
    from unnest(?::text[], ?::integer[]) as d(address, n) where tokens.address = decode(d.address, 'hex')`,
  // Array literals: knex would spread a JS array binding into a list. Hex and integers need no quoting.
  [`{${[...change.keys()].join(',')}}`, `{${[...change.values()].join(',')}}`])
}

const counterUpdate = (range: string, sign: 1 | -1) => `
    update addresses set transaction_count = transaction_count + ${sign} * c.tx,
      token_transfer_count = token_transfer_count + ${sign} * c.tt, gas_used = gas_used + ${sign} * c.gas
    from (${counterDeltas(range)}) c where addresses.hash = c.a`

async function shiftCounters (trx: Knex.Transaction, range: string, sign: 1 | -1, bindings: number[]): Promise<void> {
  await trx.raw(counterUpdate(range, sign), [...bindings, ...bindings, ...bindings, ...bindings, ...bindings])
}

/** Adds what blocks from..to brought; their rows are already inserted. */
export async function applyAggregates (trx: Knex.Transaction, from: number, to: number, contracts: ContractCodeRow[]): Promise<void> {
  // Inlined, not bound: the statements that need no answer between them go in one round trip (statements.ts).
  const range = `block_number between ${inlineInteger(from)} and ${inlineInteger(to)}`
  const results = await runStatements(trx, [
    // Every address a block touches has a coin balance row for that block (the fetch stage reads it).
    `insert into addresses (hash, coin_balance, balance_block, first_block, last_block)
    select distinct on (address) address, value, block_number, min(block_number) over (partition by address), block_number
      from coin_balances where ${range} order by address, block_number desc
    on conflict (hash) do update set coin_balance = excluded.coin_balance, balance_block = excluded.balance_block,
      last_block = excluded.last_block, first_block = least(addresses.first_block, excluded.first_block)`,
    `update addresses set nonce = greatest(coalesce(addresses.nonce, 0), s.next_nonce)
    from (select "from" as a, max(nonce) + 1 as next_nonce from transactions where ${range} group by 1) s where addresses.hash = s.a`,
    counterUpdate(range, 1),
    holdingQuery(range)
  ])
  await shiftTokenBalances(trx, range, 1, [], holdingOf(results[results.length - 1]!.rows as HoldingRow[]))
  await recordContracts(trx, contracts)
}

/**
 * Contract code and creation into the contracts' address rows. During a bulk
 * load the rows may not exist yet: made here, the rest of them follows when
 * the load finishes (first_block stays null until then; least() skips nulls).
 */
export async function recordContracts (trx: Knex.Transaction, contracts: ContractCodeRow[]): Promise<void> {
  for (const c of contracts) {
    const creation = {
      contract_code: hexToBytes(c.code),
      creation_transaction: hexToBytes(c.creation_transaction),
      creator: hexToBytes(c.creator),
      creation_block: c.block_number
    }
    await trx('addresses').insert({ hash: hexToBytes(c.address), ...creation }).onConflict('hash').merge(creation)
  }
}

/**
 * Deletes blocks from `from` up (their rows cascade) after taking their share
 * out of the running sums. Returns how many blocks went.
 */
export async function removeBlocksFrom (trx: Knex.Transaction, from: number): Promise<number> {
  const present = await trx('blocks').where('number', '>=', from).first('number')
  if (present === undefined) return 0
  const range = 'block_number >= ?'
  const bindings = [from]
  await trx.raw(`create temporary table affected_addresses on commit drop as
    select distinct address as hash from coin_balances where ${range}`, bindings)
  await shiftCounters(trx, range, -1, bindings)
  await shiftTokenBalances(trx, range, -1, bindings)
  // Metadata read for an instance the dropped blocks moved may describe the branch that lost: read it again when asked.
  await trx.raw(`delete from token_instance_metadata m using token_transfers t
    where t.${range} and m.token_address = t.token_address and m.token_id = t.token_id`, bindings)
  const removed = await trx('blocks').where('number', '>=', from).delete()
  await recomputeAddresses(trx, from)
  await trx.raw('delete from tokens where first_block >= ?', [from])
  return removed
}

/** What cannot be subtracted is read again from the rows that remain. */
async function recomputeAddresses (trx: Knex.Transaction, from: number): Promise<void> {
  await trx.raw(`delete from addresses a using affected_addresses x
    where a.hash = x.hash and not exists (select 1 from coin_balances c where c.address = a.hash)`)
  await trx.raw(`
    update addresses a set coin_balance = latest.value, balance_block = latest.block_number, last_block = latest.block_number,
      nonce = (select max(nonce) + 1 from transactions t where t."from" = a.hash)
    from affected_addresses x,
      lateral (select value, block_number from coin_balances c where c.address = x.hash order by block_number desc limit 1) latest
    where a.hash = x.hash`)
  await trx.raw(`update addresses set contract_code = null, creation_transaction = null, creator = null, creation_block = null
    where creation_block >= ?`, [from])
}

export function hexToBytes (hex: string): Buffer {
  return Buffer.from(hex.slice(2), 'hex')
}
