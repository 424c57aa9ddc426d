// A transaction's balance changes. Coin balances come from Geth's
// prestateTracer in diff mode (the node is archive): it reports each touched
// account's balance before and after this very transaction, fees and the
// coinbase's tip included, which per-block balance rows cannot give. Token
// balances come from the index: the transfers before the transaction summed,
// then this transaction's transfers applied.
import type { RpcClient } from '../rpc/client.ts'
import type { TokenTransferRecord } from './token-transfers.ts'
import type { QueryDb } from './query-db.ts'

const ZERO_ADDRESS = '00'.repeat(20)

type PrestateAccount = { balance?: string }
type PrestateDiff = { pre: Record<string, PrestateAccount>, post: Record<string, PrestateAccount> }

export type CoinChange = { address: Buffer, is_contract: boolean, is_miner: boolean, before: bigint, after: bigint }

/** One holder's balance of one token (and, for ERC-1155, one id); ERC-721 counts the holder's tokens. */
export type TokenChange = {
  address: Buffer
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

type TransactionPosition = { block_number: string, transaction_index: number, miner: Buffer, from: Buffer, to: Buffer | null }

/** Undefined when the transaction is not indexed. */
export async function readStateChanges (db: QueryDb, { rpc, hash, transfers }: { rpc: RpcClient, hash: Buffer, transfers: TokenTransferRecord[] }): Promise<StateChanges | undefined> {
  // The tip goes to the block's author: on clique the signer (the header's miner is the zero address).
  const { rows } = await db.knex.raw(`select t.block_number, t.transaction_index, coalesce(b.signer, b.miner) as miner, t."from", t."to"
    from transactions t join blocks b on b.number = t.block_number where t.hash = ?`, [hash])
  const tx = rows[0] as TransactionPosition | undefined
  if (tx === undefined) return undefined
  const diff = await rpc.call<PrestateDiff>('debug_traceTransaction', ['0x' + hash.toString('hex'), { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }])
  const token = tokenChanges(transfers)
  await fillTokenBalancesBefore(db, tx, token)
  const coin = coinChanges(diff, tx)
  const contracts = await contractAddresses(db, [...coin, ...token].map((c) => c.address))
  const miner = tx.miner.toString('hex')
  for (const change of [...coin, ...token]) {
    change.is_contract = contracts.has(change.address.toString('hex'))
    change.is_miner = change.address.toString('hex') === miner
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
    if (before !== after) changes.push({ address: Buffer.from(address, 'hex'), is_contract: false, is_miner: false, before, after })
  }
  // The sender and the recipient first, as an explorer reads them; the rest by address.
  const rank = (c: CoinChange) => c.address.equals(tx.from) ? 0 : tx.to !== null && c.address.equals(tx.to) ? 1 : 2
  return changes.sort((a, b) => rank(a) - rank(b) || Buffer.compare(a.address, b.address))
}

/** Per holder and token (and id for ERC-1155), in the order the transfers came; the zero address (mint and burn) is no holder. */
function tokenChanges (transfers: TokenTransferRecord[]): TokenChange[] {
  const changes = new Map<string, TokenChange>()
  for (const t of transfers) {
    for (const [holder, direction, sign] of [[t.from, 'from', -1n], [t.to, 'to', 1n]] as const) {
      if (holder.toString('hex') === ZERO_ADDRESS) continue
      const tokenId = t.token_type === 'ERC-1155' ? t.token_id : null
      const key = `${holder.toString('hex')}:${t.token_address.toString('hex')}:${tokenId ?? ''}`
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
  [tx.block_number, tx.transaction_index, changes.map((c) => c.address.toString('hex')), changes.map((c) => c.token.token_address.toString('hex')),
    changes.map((c) => c.token_id) as string[]])
  for (const row of rows as Array<{ n: string, before: string }>) {
    const change = changes[Number(row.n) - 1]!
    change.before = BigInt(row.before)
    change.after += change.before
  }
}

async function contractAddresses (db: QueryDb, addresses: Buffer[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set()
  const rows = await db.knex('addresses').whereIn('hash', addresses).whereNotNull('contract_code').select('hash')
  return new Set(rows.map((r: { hash: Buffer }) => r.hash.toString('hex')))
}
