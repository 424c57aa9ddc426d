// The REST API's transaction (Blockscout's object), written as JSON text by
// PostgreSQL; the SQL stays in core/ since core's list queries select it. A page
// of 50 transactions is about 75 KB of JSON: read as 27 columns a row, then
// presented and serialised in JavaScript, it cost the gateway's one thread
// 0.7 ms a page and held the REST lists to 1,400 pages/s while PostgreSQL sat
// half idle (bench:rest). Written by PostgreSQL through plain concatenation
// it costs the database 0.15 ms more and the gateway a fraction: 1.5 times
// the pages. (json_build_object was slower still: it looks every value's type
// up in the catalogue, per row.) What PostgreSQL cannot write are the address
// objects (EIP-55 needs keccak): the row carries the addresses and their
// contract flags, and the REST layer splices its cached objects in
// (plugins/present/present-transaction.ts), with the members that never vary,
// and writes the input with its decoding (method, decoded_input: decoding
// needs ABIs, which PostgreSQL does not have).
//
// Only values that need no escaping are quoted by hand (hex, numbers, fixed
// words); the one free text, a failed transaction's error, goes through to_json.
// The timestamp is the gateway's to write (present-transaction.ts): to_char
// was a sixth of the statement's cost.

import { epochColumn, hexColumn } from '../sql/columns.ts'

/** One transaction as read for the REST API. */
export type TransactionJsonRow = {
  /** Lowercase 0x-hex. */
  from: string
  to: string | null
  created_contract: string | null
  from_is_contract: boolean
  /** Whether the callee (or the created contract) has code. */
  to_is_contract: boolean
  block_number: number
  transaction_index: number
  /** The block's, in seconds since the epoch: formatting it here costs PostgreSQL more than the gateway (to_char). */
  timestamp: number
  /** The call's input, 0x-hex: the gateway decodes it and writes raw_input, method and decoded_input. */
  input: string
  /** The object's other members as JSON text, without the braces. */
  members: string
}

// A JSON value is written as parts: fixed text, and SQL expressions giving
// text. Neighbouring fixed texts are joined before the SQL is written, so a
// member's closing quote, the next one's name and its opening quote are one
// literal: every || is a function call per row, and there are 25 members.
type Part = { text: string } | { sql: string }
const text = (value: string): Part => ({ text: value })
const sql = (expression: string): Part => ({ sql: expression })
const quoted = (expression: string): Part[] => [text('"'), sql(expression), text('"')]
const hexString = (bytes: string): Part[] => [text('"0x'), sql(`encode(${bytes}, 'hex')`), text('"')]
const orNull = (parts: Part[]): Part[] => [sql(`coalesce(${concatenation(parts)}, 'null')`)]
const bool = (predicate: string): Part[] => [sql(`case when ${predicate} then 'true' else 'false' end`)]

/** The parts as one SQL text expression, neighbouring fixed texts joined. */
function concatenation (parts: Part[]): string {
  const merged: Part[] = []
  for (const part of parts) {
    const last = merged[merged.length - 1]
    if ('text' in part && last !== undefined && 'text' in last) merged[merged.length - 1] = text(last.text + part.text)
    else merged.push(part)
  }
  return merged.map((p) => 'text' in p ? `'${p.text.replace(/'/g, "''")}'` : p.sql).join(' || ')
}

// Blockscout's result: "success", or the error, with Geth's plain revert as "Reverted".
const RESULT = `case when t.status = 1 then '"success"'
  when t.error is null or t.error = 'execution reverted' then '"Reverted"'
  else to_json(t.error)::text end`
// Blockscout gives a revert reason where the result says reverted.
const REVERTED = 't.status <> 1 and (t.error is null or t.error ~* \'reverted\')'

// Blockscout's transaction_types, in its order. Same rules as the block list's type filter (block-transactions.ts).
const CALLS_CONTRACT = 'f.to_is_contract and octet_length(t.input) > 0'
const TYPES = [text('['), sql(`concat_ws(',',
  case when t.has_token_transfers then '"token_transfer"' end,
  case when t."to" is null then case when f.creates_token then '"token_creation"' else '"contract_creation"' end
    when ${CALLS_CONTRACT} then '"contract_call"' end,
  case when t.value > 0 or not (t.has_token_transfers or t."to" is null or (${CALLS_CONTRACT})) then '"coin_transfer"' end
)`), text(']')]

const MEMBERS: Array<[name: string, json: Part[]]> = [
  ['hash', hexString('t.hash')],
  ['result', [sql(RESULT)]],
  ['status', [sql('case when t.status = 1 then \'"ok"\' else \'"error"\' end')]],
  ['block_number', [sql('t.block_number::text')]],
  ['confirmations', [sql('greatest(0, (select max(number) from blocks) - t.block_number + 1)::text')]],
  ['value', quoted('t.value::text')],
  ['fee', [text('{"type":"actual","value":"'), sql('(t.gas_used * t.effective_gas_price)::text'), text('"}')]],
  ['gas_price', quoted('t.effective_gas_price::text')],
  ['gas_used', quoted('t.gas_used::text')],
  ['gas_limit', quoted('t.gas::text')],
  ['max_fee_per_gas', orNull(quoted('t.max_fee_per_gas::text'))],
  ['max_priority_fee_per_gas', orNull(quoted('t.max_priority_fee_per_gas::text'))],
  ['base_fee_per_gas', orNull(quoted('b.base_fee_per_gas::text'))],
  ['priority_fee', orNull(quoted('((t.effective_gas_price - b.base_fee_per_gas) * t.gas_used)::text'))],
  ['transaction_burnt_fee', orNull(quoted('(b.base_fee_per_gas * t.gas_used)::text'))],
  ['type', [sql('t.type::text')]],
  ['nonce', [sql('t.nonce::text')]],
  ['position', [sql('t.transaction_index::text')]],
  ['revert_reason', [sql(`case when ${REVERTED} then ${concatenation([text('{"raw":'), ...orNull(hexString('t.revert_reason')), text('}')])} else 'null' end`)]],
  ['transaction_types', TYPES],
  ['has_error_in_internal_transactions', bool('f.has_internal_error')]
]

/** The select list over transactions `t` joined by TRANSACTION_JSON_JOINS. */
export const TRANSACTION_JSON_COLUMNS = `
  ${hexColumn('t."from"')} as "from", ${hexColumn('t."to"')} as "to", ${hexColumn('t.created_contract')} as created_contract,
  f.from_is_contract, f.to_is_contract, t.block_number::int as block_number, t.transaction_index, ${epochColumn('b.timestamp')} as timestamp,
  ${hexColumn('t.input')} as input,
  ${concatenation(MEMBERS.flatMap(([name, json], i) => [text(`${i === 0 ? '' : ','}"${name}":`), ...json]))} as members`

// Each flag is an existence check on one small index: the contract flags on
// the partial index of addresses with code, the internal-error flag on the
// partial index of failed inner frames (migration
// 2026_11_21_6_transaction_flag_indexes). Whether it moved tokens is kept on
// the row (migration 2026_11_21_7_transaction_token_transfer_flag).
export const TRANSACTION_JSON_JOINS = `
  join blocks b on b.number = t.block_number
  cross join lateral (select
    exists (select 1 from addresses a where a.hash = t."from" and a.contract_code is not null) as from_is_contract,
    exists (select 1 from addresses a where a.hash = coalesce(t."to", t.created_contract) and a.contract_code is not null) as to_is_contract,
    exists (select 1 from tokens k where k.address = t.created_contract) as creates_token,
    exists (select 1 from internal_transactions i where i.transaction_hash = t.hash and i.error is not null and i.trace_index > 0) as has_internal_error
  ) f`
