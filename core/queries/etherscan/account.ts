// The Etherscan-style account module's reads: coin balances from the index,
// an address's transactions and internal transactions in Etherscan's shapes
// (every number a decimal string, absent addresses ""), paged by
// etherscan-page.ts over the address's own indexes.
import { hexColumn } from '../sql/columns.ts'
import { readMergedPage, type PageWindow } from './page.ts'
import type { QueryDb } from '../sql/query-db.ts'

/** The listed-frame predicate of the partial indexes (migration 2026_11_21_3), as written there. */
const LISTED = '(trace_index > 0 or type <> \'call\')'

export type BlockRange = { from: number, to: number }

const hexOrEmpty = (column: string) => `coalesce(${hexColumn(column)}, '')`
const CONFIRMATIONS = (block: string) => `((select max(number) from blocks) - ${block} + 1)::text`
const EPOCH = (column: string) => `extract(epoch from ${column})::bigint::text`

/** The current coin balance of each address the index has seen (wei, as text); an unseen one has none. */
export async function readCoinBalances (db: QueryDb, addresses: Buffer[]): Promise<Map<string, string>> {
  const { rows } = await db.knex.raw('select hash, coin_balance::text as balance from addresses where hash = any(?)', [addresses])
  return new Map(rows.map((r: { hash: Buffer, balance: string }) => [r.hash.toString('hex'), r.balance]))
}

/** Etherscan's txlist item, in its field order. */
export type AccountTransaction = Record<'blockNumber' | 'timeStamp' | 'hash' | 'nonce' | 'blockHash' | 'transactionIndex' | 'from' | 'to' | 'value' |
'gas' | 'gasPrice' | 'isError' | 'txreceipt_status' | 'input' | 'contractAddress' | 'cumulativeGasUsed' | 'gasUsed' | 'confirmations' |
'methodId' | 'functionName', string>

/** The columns of a transactions row `t` joined to its block `b`, under Etherscan's names. */
export const TRANSACTION_FIELDS = {
  blockNumber: 't.block_number::text',
  timeStamp: EPOCH('b.timestamp'),
  hash: hexColumn('t.hash'),
  nonce: 't.nonce::text',
  blockHash: hexColumn('b.hash'),
  transactionIndex: 't.transaction_index::text',
  from: hexColumn('t."from"'),
  to: hexOrEmpty('t."to"'),
  value: 't.value::text',
  gas: 't.gas::text',
  // What the sender paid per gas: a dynamic-fee transaction has no gas price of its own.
  gasPrice: 't.effective_gas_price::text',
  isError: 'case when t.status = 1 then \'0\' else \'1\' end',
  txreceipt_status: 't.status::text',
  input: hexColumn('t.input'),
  contractAddress: hexOrEmpty('t.created_contract'),
  cumulativeGasUsed: 't.cumulative_gas_used::text',
  gasUsed: 't.gas_used::text',
  confirmations: CONFIRMATIONS('t.block_number'),
  methodId: hexColumn('substring(t.input from 1 for 4)'),
  // Named by the decoder (core/decode) once the page is read: nameFunctions in plugins/etherscan/account.ts.
  functionName: '\'\''
}

/** A txlist row, and whether its `to` holds code: only a call to a contract is named, as the REST API decodes only those. */
export type AccountTransactionRow = AccountTransaction & { toIsContract: boolean }

export const selectFields = (fields: Record<string, string>): string =>
  Object.entries(fields).map(([name, sql]) => `${sql} as "${name}"`).join(', ')

const inRange = 'block_number between ? and ?'

/** The transactions from, to or creating `address` in the block range. */
export async function listAccountTransactions (db: QueryDb, { address, range, window }: { address: Buffer, range: BlockRange, window: PageWindow }): Promise<AccountTransactionRow[]> {
  const bindings = [address, range.from, range.to]
  return await readMergedPage<AccountTransactionRow>(db, {
    table: 'transactions',
    sides: ['"from"', '"to"', 'created_contract'].map((column) => ({ where: `${column} = ? and ${inRange}`, bindings })),
    keys: ['block_number', 'transaction_index'],
    window
  }, 't', `${selectFields(TRANSACTION_FIELDS)}, ta.contract_code is not null as "toIsContract"`,
  'join blocks b on b.number = t.block_number left join addresses ta on ta.hash = t."to"')
}

/** Etherscan's txlistinternal item; asked by transaction hash it has no hash nor traceId. */
export type AccountInternalTransaction = Record<'blockNumber' | 'timeStamp' | 'from' | 'to' | 'value' | 'contractAddress' | 'input' | 'type' |
'gas' | 'gasUsed' | 'isError' | 'errCode', string> & { hash?: string, traceId?: string }

const INTERNAL_FIELDS = {
  blockNumber: 'i.block_number::text',
  timeStamp: EPOCH('b.timestamp'),
  hash: hexColumn('i.transaction_hash'),
  from: hexColumn('i."from"'),
  to: hexOrEmpty('i."to"'),
  value: 'i.value::text',
  contractAddress: hexOrEmpty('i.created_contract'),
  // Etherscan leaves a frame's input out.
  input: '\'\'',
  type: 'i.type',
  gas: 'i.gas::text',
  gasUsed: 'i.gas_used::text',
  // The frame's position in the call tree, as Etherscan writes it: "0_1" is the second call of the first.
  traceId: 'array_to_string(i.trace_address, \'_\')',
  isError: 'case when i.error is null then \'0\' else \'1\' end',
  errCode: 'coalesce(i.error, \'\')'
}
const { hash: _hash, traceId: _traceId, ...INTERNAL_FIELDS_OF_TRANSACTION } = INTERNAL_FIELDS

/** The field names of each list, in Etherscan's order: the response schemas are made of them. */
export const ACCOUNT_FIELD_NAMES = {
  transaction: Object.keys(TRANSACTION_FIELDS),
  internal: Object.keys(INTERNAL_FIELDS),
  internalOfTransaction: Object.keys(INTERNAL_FIELDS_OF_TRANSACTION)
}

export type InternalSelection =
  | { address: Buffer, range: BlockRange }
  | { transaction: Buffer }
  | { range: BlockRange }

const INTERNAL_KEYS = ['block_number', 'transaction_index', 'trace_index']

/**
 * Internal transactions (call frames other than a transaction's own call)
 * of an address (from, to or created), of one transaction, or of a block
 * range: each read from its own index (the listed partial indexes, the
 * transaction's, the created contracts').
 */
export async function listAccountInternalTransactions (db: QueryDb, { selection, window }: { selection: InternalSelection, window: PageWindow }): Promise<AccountInternalTransaction[]> {
  const joins = 'join blocks b on b.number = i.block_number'
  if ('transaction' in selection) {
    return await readMergedPage(db, {
      table: 'internal_transactions',
      sides: [{ where: `transaction_hash = ? and ${LISTED}`, bindings: [selection.transaction] }],
      keys: INTERNAL_KEYS,
      window
    }, 'i', selectFields(INTERNAL_FIELDS_OF_TRANSACTION), joins)
  }
  const range = [selection.range.from, selection.range.to]
  const sides = 'address' in selection
    ? [
        { where: `"from" = ? and ${LISTED} and ${inRange}`, bindings: [selection.address, ...range] },
        { where: `"to" = ? and ${LISTED} and ${inRange}`, bindings: [selection.address, ...range] },
        { where: `created_contract = ? and ${inRange}`, bindings: [selection.address, ...range] }
      ]
    : [{ where: `${LISTED} and ${inRange}`, bindings: range }]
  return await readMergedPage(db, { table: 'internal_transactions', sides, keys: INTERNAL_KEYS, window }, 'i', selectFields(INTERNAL_FIELDS), joins)
}
