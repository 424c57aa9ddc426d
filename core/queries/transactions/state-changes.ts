// A transaction's balance changes. Coin balances come from Geth's
// prestateTracer in diff mode (the node is archive): it reports each touched
// account's balance before and after this very transaction, fees and the
// coinbase's tip included, which per-block balance rows cannot give. Token
// balances come from the index: the transfers before the transaction summed,
// then this transaction's transfers applied.
import type { RpcClient } from '../../rpc/client.ts'
import { ZERO_ADDRESS, type Hex } from '../../rows.ts'
import { hexColumn } from '../sql/columns.ts'
import type { TokenTransferRecord } from '../tokens/token-transfers.ts'
import type { QueryDb } from '../sql/query-db.ts'

type PrestateAccount = { balance?: string }
type PrestateDiff = { pre: Record<string, PrestateAccount>, post: Record<string, PrestateAccount> }

export type CoinChange = { address: Hex, is_contract: boolean, is_miner: boolean, before: bigint, after: bigint }

/** One holder's balance of one token (and, for ERC-1155, one id); ERC-721 counts the holder's tokens. */
export type TokenChange = {
  address: Hex
  is_contract: boolean
  is_miner: boolean
  token: TokenTransferRecord
  token_id: string | null
  before: bigint
  after: bigint
  /** ERC-721 only: the tokens that left or reached the holder. */
  moves: Array<{ token_id: string | null, direction: 'from' | 'to' }>
}

export type StateChanges = { coin: CoinChange[], token: TokenChange[] }

type TransactionPosition = { block_number: string, transaction_index: number, miner: Hex, from: Hex, to: Hex | null }

/** Undefined when the transaction is not indexed. */
export async function readStateChanges (db: QueryDb, { rpc, hash, transfers }: { rpc: RpcClient, hash: Buffer, transfers: TokenTransferRecord[] }): Promise<StateChanges | undefined> {
  // The tip goes to the block's author: on clique the signer (the header's miner is the zero address).
  const { rows } = await db.knex.raw(`select t.block_number, t.transaction_index, ${hexColumn('coalesce(b.signer, b.miner)')} as miner,
    ${hexColumn('t."from"')} as "from", ${hexColumn('t."to"')} as "to"
    from transactions t join blocks b on b.number = t.block_number where t.hash = ?`, [hash])
  const tx = rows[0] as TransactionPosition | undefined
  if (tx === undefined) return undefined
  const diff = await rpc.call<PrestateDiff>('debug_traceTransaction', ['0x' + hash.toString('hex'), { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }])
  const token = tokenChanges(transfers)
  await fillTokenBalancesBefore(db, tx, token)
  const coin = coinChanges(diff, tx)
  const contracts = await contractAddresses(db, [...coin, ...token].map((c) => c.address))
  for (const change of [...coin, ...token]) {
    change.is_contract = contracts.has(change.address)
    change.is_miner = change.address === tx.miner
  }
  return { coin, token }
}

/**
 * In diff mode Geth keeps only accounts the transaction modified; `post`
 * lists only the fields that changed, and leaves out accounts it deleted.
 */
function coinChanges (diff: PrestateDiff, tx: TransactionPosition): CoinChange[] {
  const addresses = new Set([...Object.keys(diff.pre), ...Object.keys(diff.post)].map((a) => a.toLowerCase().slice(2)))
  const balance = (side: Record<string, PrestateAccount>, address: string) =>
    Object.entries(side).find(([a]) => a.toLowerCase().slice(2) === address)?.[1]
  const changes: CoinChange[] = []
  for (const address of addresses) {
    const pre = balance(diff.pre, address)
    const post = balance(diff.post, address)
    const before = BigInt(pre?.balance ?? '0x0')
    const after = post === undefined ? (pre === undefined ? before : 0n) : BigInt(post.balance ?? pre?.balance ?? '0x0')
    if (before !== after) changes.push({ address: `0x${address}`, is_contract: false, is_miner: false, before, after })
  }
  // The sender and the recipient first, as an explorer reads them; the rest by address.
  const rank = (c: CoinChange) => c.address === tx.from ? 0 : c.address === tx.to ? 1 : 2
  // Lower-case hex of one length sorts as its bytes do.
  return changes.sort((a, b) => rank(a) - rank(b) || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0))
}

/** Per holder and token (and id for ERC-1155), in the order the transfers came; the zero address (mint and burn) is no holder. */
function tokenChanges (transfers: TokenTransferRecord[]): TokenChange[] {
  const changes = new Map<string, TokenChange>()
  for (const t of transfers) {
    for (const [holder, direction, sign] of [[t.from, 'from', -1n], [t.to, 'to', 1n]] as const) {
      if (holder === ZERO_ADDRESS) continue
      const tokenId = t.token_type === 'ERC-1155' ? t.token_id : null
      const key = `${holder}:${t.token_address}:${tokenId ?? ''}`
      let change = changes.get(key)
      if (change === undefined) {
        change = { address: holder, is_contract: false, is_miner: false, token: t, token_id: tokenId, before: 0n, after: 0n, moves: [] }
        changes.set(key, change)
      }
      change.after += sign * BigInt(t.amount)
      if (t.token_type === 'ERC-721') change.moves.push({ token_id: t.token_id, direction })
    }
  }
  // Transfers back and forth that cancel out leave no change, except NFTs that moved.
  return [...changes.values()].filter((c) => c.after !== 0n || c.moves.length > 0)
}

/** Sets `before` (the sum of earlier transfers) and turns `after` from this transaction's net into the balance after it. */
async function fillTokenBalancesBefore (db: QueryDb, tx: TransactionPosition, changes: TokenChange[]): Promise<void> {
  if (changes.length === 0) return
  const { rows } = await db.knex.raw(`
    select k.n, coalesce((
      select sum(case when tt."to" = k.holder then tt.amount else 0 end) - sum(case when tt."from" = k.holder then tt.amount else 0 end)
      from token_transfers tt
      where (tt."to" = k.holder or tt."from" = k.holder) and tt.token_address = k.token
        and (k.token_id is null or tt.token_id = k.token_id)
        and (tt.block_number, tt.transaction_index) < (?, ?)
    ), 0)::text as before
    from unnest(?::text[], ?::text[], ?::numeric[]) with ordinality as k0(holder_hex, token_hex, token_id, n)
    cross join lateral (select k0.n, decode(k0.holder_hex, 'hex') as holder, decode(k0.token_hex, 'hex') as token, k0.token_id) k`,
  [tx.block_number, tx.transaction_index, changes.map((c) => c.address.slice(2)), changes.map((c) => c.token.token_address.slice(2)),
    changes.map((c) => c.token_id) as string[]])
  for (const row of rows as Array<{ n: string, before: string }>) {
    const change = changes[Number(row.n) - 1]!
    change.before = BigInt(row.before)
    change.after += change.before
  }
}

async function contractAddresses (db: QueryDb, addresses: Hex[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set()
  const rows = await db.knex('addresses').whereIn('hash', addresses.map((a) => Buffer.from(a.slice(2), 'hex'))).whereNotNull('contract_code').select('hash')
  return new Set(rows.map((r: { hash: Buffer }) => '0x' + r.hash.toString('hex')))
}
