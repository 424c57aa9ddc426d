// The Etherscan-style account module's token reads: an address's (or a token
// contract's) ERC-20, ERC-721 and ERC-1155 transfers in Etherscan's three
// shapes, and an ERC-20 balance from the running sums the indexer keeps.
import { hexColumn } from '../sql/columns.ts'
import { TRANSACTION_FIELDS, selectFields, type BlockRange } from './account.ts'
import { readMergedPage, type PageWindow } from './page.ts'
import type { QueryDb } from '../sql/query-db.ts'

export type TransferStandard = 'ERC-20' | 'ERC-721' | 'ERC-1155'

const T = TRANSACTION_FIELDS
/** Transfer `x` of transaction `t` in block `b`, token `k`. */
const tx = {
  blockNumber: T.blockNumber,
  timeStamp: T.timeStamp,
  hash: T.hash,
  nonce: T.nonce,
  blockHash: T.blockHash,
  transactionIndex: T.transactionIndex,
  gas: T.gas,
  gasPrice: T.gasPrice,
  gasUsed: T.gasUsed,
  cumulativeGasUsed: T.cumulativeGasUsed,
  // Etherscan's word for the transaction's input on these lists.
  input: '\'deprecated\'',
  confirmations: T.confirmations
}
const party = {
  from: hexColumn('x."from"'),
  contractAddress: hexColumn('x.token_address'),
  to: hexColumn('x."to"')
}
const token = { tokenName: 'coalesce(k.name, \'\')', tokenSymbol: 'coalesce(k.symbol, \'\')' }

/** tokentx and tokennfttx: the same fields but for the amount (or id) and the decimals. */
const transferOf = (amount: Record<string, string>, decimals: string): Record<string, string> => ({
  ...pick(tx, 'blockNumber', 'timeStamp', 'hash', 'nonce', 'blockHash'),
  ...party,
  ...amount,
  ...token,
  tokenDecimal: decimals,
  ...pick(tx, 'transactionIndex', 'gas', 'gasPrice', 'gasUsed', 'cumulativeGasUsed', 'input', 'confirmations')
})

/** Etherscan's field order for each list. */
const FIELDS: Record<TransferStandard, Record<string, string>> = {
  'ERC-20': transferOf({ value: 'x.amount::text' }, 'coalesce(k.decimals::text, \'\')'),
  // Etherscan writes an NFT's decimals as 0.
  'ERC-721': transferOf({ tokenID: 'x.token_id::text' }, '\'0\''),
  'ERC-1155': {
    ...pick(tx, 'blockNumber', 'timeStamp', 'hash', 'nonce', 'blockHash', 'transactionIndex', 'gas', 'gasPrice', 'gasUsed', 'cumulativeGasUsed', 'input'),
    contractAddress: party.contractAddress,
    from: party.from,
    to: party.to,
    tokenID: 'x.token_id::text',
    tokenValue: 'x.amount::text',
    ...token,
    confirmations: tx.confirmations
  }
}

/** Each list's field names, in Etherscan's order. */
export const TRANSFER_FIELD_NAMES = Object.fromEntries(Object.entries(FIELDS).map(([standard, fields]) => [standard, Object.keys(fields)])) as
  Record<TransferStandard, string[]>

function pick<K extends string> (from: Record<K, string>, ...names: K[]): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, from[n]]))
}

const JOINS = `join blocks b on b.number = x.block_number
  join transactions t on t.hash = x.transaction_hash
  left join tokens k on k.address = x.token_address`

export type TransferSelection = { address?: Buffer, token?: Buffer, range: BlockRange }

/**
 * The transfers of one standard from or to `address`, of `token`, or both.
 * With an address its two indexes are read (the token narrows them); with
 * only a token, the token's index. An ERC-1155 batch is a row per id, as
 * Etherscan lists it.
 */
export async function listAccountTokenTransfers (db: QueryDb, { standard, selection, window }: { standard: TransferStandard, selection: TransferSelection, window: PageWindow }): Promise<Array<Record<string, string>>> {
  const { address, token: tokenAddress, range } = selection
  const narrow = `token_type = ? and block_number between ? and ?${tokenAddress === undefined ? '' : ' and token_address = ?'}`
  const narrowing = [standard, range.from, range.to, ...(tokenAddress === undefined ? [] : [tokenAddress])]
  const sides = address === undefined
    ? [{ where: narrow, bindings: narrowing }]
    : ['"from"', '"to"'].map((column) => ({ where: `${column} = ? and ${narrow}`, bindings: [address, ...narrowing] }))
  return await readMergedPage(db, {
    table: 'token_transfers',
    sides,
    keys: ['block_number', 'log_index', 'batch_index'],
    window
  }, 'x', selectFields(FIELDS[standard]), JOINS)
}

/** An address's balance of an ERC-20 token (wei of the token, as text): "0" when it never held any. */
export async function readTokenBalance (db: QueryDb, { tokenAddress, holder }: { tokenAddress: Buffer, holder: Buffer }): Promise<string> {
  // ERC-20 balances are kept under token id -1 (migration 2026_11_21_2).
  const { rows } = await db.knex.raw('select value::text from token_balances where token_address = ? and holder = ? and token_id = -1', [tokenAddress, holder])
  return rows[0]?.value ?? '0'
}
