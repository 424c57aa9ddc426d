// What Blockscout's Notifier broadcasts on its v2 topics when blocks are
// imported, from the indexer's committed batches, in the REST API's shapes:
//   blocks:new_block and blocks:<signer>  new_block {average_block_time, block}
//   transactions:new_transaction          transaction {transaction: count}
//   tokens:<token>                        token_transfer {token_transfer: count}
//   addresses:<hash>                      transaction {transactions}, token_transfer {token_transfers},
//                                         balance, current_coin_balance, coin_balance, token_balance
//   addresses:new_address                 count {count}
// Only topics someone joined are worked out: an address's payloads cost reads.
// There is no price feed, so exchange_rate is null.
import type { CommittedBlock, Hex, TokenTransferRow, TransactionRow } from '../../core/indexer/types.ts'
import type { ChannelHub } from '../../core/phoenix/hub.ts'
import { TOPICS } from '../../core/phoenix/topics.ts'
import { blockMiner, presentBlock } from '../present/present.ts'
import { presentTokenTransfer, tokenTransferAddresses, transactionAddresses, transactionJson } from '../present/present-transaction.ts'
import { decodeTransactionInput, transferMethods } from '../present/decodings.ts'
import { createDecoder, NO_VERIFIED_ABIS, type Decoder } from '../../core/decode/index.ts'
import { presentCoinBalance } from '../present/coin-balance.ts'
import { confirmationDurationJson } from '../present/confirmation-duration.ts'
import type { Queries } from '../../core/queries/index.ts'
import { NO_NAMES, type AddressNameReader } from '../../core/address-names/index.ts'

/** The app's names (plugins/address-names); without it, address objects show none. */
type NameReader = Pick<AddressNameReader, 'read'>
const NO_NAME_READER: NameReader = { read: async () => NO_NAMES }

/**
 * new_block events for at most this many blocks of a batch, the newest: a
 * backfill commits thousands of blocks at once, which Blockscout's realtime
 * fetcher would never broadcast, and a page shows only the newest anyway.
 */
export const MAX_NEW_BLOCKS_PER_BATCH = 10
/** A transaction's transfers read for an address page: more than any block of this chain's tests and benches carries. */
const MAX_TRANSFERS_PER_TRANSACTION = 1000

const bytes = (hex: string): Buffer => Buffer.from(hex.slice(2), 'hex')
const lower = (hex: string): string => hex.toLowerCase()

function groupBy<T> (items: T[], keys: (item: T) => Array<string | null>): Map<string, T[]> {
  const groups = new Map<string, T[]>()
  for (const item of items) {
    for (const key of new Set(keys(item).filter((k): k is string => k !== null).map(lower))) groups.set(key, [...groups.get(key) ?? [], item])
  }
  return groups
}

async function broadcastBlocks (queries: Queries, names: NameReader, hub: ChannelHub, batch: CommittedBlock[]): Promise<void> {
  const minerTopic = (b: CommittedBlock) => b.block.signer === null ? undefined : TOPICS.minerBlocks(b.block.signer)
  const wanted = batch.slice(-MAX_NEW_BLOCKS_PER_BATCH)
    .filter((b) => hub.hasSubscribers(TOPICS.newBlock) || (minerTopic(b) !== undefined && hub.hasSubscribers(minerTopic(b)!)))
  if (wanted.length === 0) return
  const { blockTimeMs } = await queries.readBlockPace()
  const averageBlockTime = String(Math.round(blockTimeMs ?? 0))
  for (const committed of wanted) {
    const record = await queries.findBlock({ number: committed.block.number })
    if (record === undefined) continue
    const payload = { average_block_time: averageBlockTime, block: presentBlock(record, 'detail', await names.read([blockMiner(record)])) }
    hub.broadcast(TOPICS.newBlock, 'new_block', payload)
    const miner = minerTopic(committed)
    if (miner !== undefined) hub.broadcast(miner, 'new_block', payload)
  }
}

function broadcastCounts (hub: ChannelHub, transactions: TransactionRow[], transfers: TokenTransferRow[]): void {
  if (transactions.length > 0) hub.broadcast(TOPICS.newTransaction, 'transaction', { transaction: transactions.length })
  for (const [token, ofToken] of groupBy(transfers, (t) => [t.token_address])) {
    hub.broadcast(TOPICS.token(token), 'token_transfer', { token_transfer: ofToken.length })
  }
}

async function broadcastAddressTransactions (queries: Queries, decoder: Decoder, names: NameReader, hub: ChannelHub, transactions: TransactionRow[], subscribed: (a: string) => boolean): Promise<void> {
  const byAddress = groupBy(transactions, (t) => [t.from, t.to, t.created_contract].filter((a) => a !== null && subscribed(a)))
  if (byAddress.size === 0) return
  const confirmation = confirmationDurationJson((await queries.readBlockPace()).blockTimeMs)
  const wanted = new Set([...byAddress.values()].flat().map((tx) => tx.hash))
  const rows = new Map<string, NonNullable<Awaited<ReturnType<Queries['findTransaction']>>>>()
  for (const hash of wanted) {
    const row = await queries.findTransaction(bytes(hash))
    if (row !== undefined) rows.set(hash, row)
  }
  // The names of every transaction broadcast, read at once.
  const named = await names.read([...rows.values()].flatMap(transactionAddresses))
  const presented = new Map<string, unknown>()
  for (const [hash, row] of rows) presented.set(hash, JSON.parse(transactionJson(row, confirmation, await decodeTransactionInput(decoder, row), named)))
  for (const [address, ofAddress] of byAddress) {
    const items = ofAddress.flatMap((tx) => presented.has(tx.hash) ? [presented.get(tx.hash)] : [])
    if (items.length > 0) hub.broadcast(TOPICS.address(address), 'transaction', { transactions: items })
  }
}

async function broadcastAddressTransfers (queries: Queries, decoder: Decoder, names: NameReader, hub: ChannelHub, transfers: TokenTransferRow[], subscribed: (a: string) => boolean): Promise<void> {
  const relevant = transfers.filter((t) => subscribed(t.from) || subscribed(t.to))
  const byAddress = new Map<string, unknown[]>()
  const records = []
  for (const hash of new Set(relevant.map((t) => t.transaction_hash))) {
    records.push(...await queries.listTransactionTokenTransfers({ hash: bytes(hash), limit: MAX_TRANSFERS_PER_TRANSACTION }))
  }
  // The method as the REST lists give it: its transaction's, decoded.
  const [named, method] = await Promise.all([names.read(records.flatMap(tokenTransferAddresses)), transferMethods(decoder, queries.readTransferCalls, records)])
  for (const record of records) {
    const item = presentTokenTransfer(record, named, method(record))
    for (const party of new Set([record.from, record.to])) {
      if (subscribed(party)) byAddress.set(party, [...byAddress.get(party) ?? [], item])
    }
  }
  for (const [address, items] of byAddress) {
    hub.broadcast(TOPICS.address(address), 'token_transfer', { token_transfers: items })
    hub.broadcast(TOPICS.address(address), 'token_balance', { block_number: (items.at(-1) as { block_number: number }).block_number })
  }
}

async function broadcastBalances (queries: Queries, hub: ChannelHub, batch: CommittedBlock[], subscribed: (a: string) => boolean): Promise<void> {
  const touched = new Set<string>()
  for (const { block, transactions, tokenTransfers } of batch) {
    const parties: Array<Hex | null> = [block.signer, ...transactions.flatMap((t) => [t.from, t.to, t.created_contract]), ...tokenTransfers.flatMap((t) => [t.from, t.to])]
    for (const party of parties) if (party !== null && subscribed(party)) touched.add(lower(party))
  }
  const first = batch[0]?.block.number ?? 0
  for (const address of touched) {
    const balance = await queries.findAddressBalance(bytes(address))
    if (balance === undefined) continue
    const topic = TOPICS.address(address)
    hub.broadcast(topic, 'balance', { balance: balance.coinBalance, block_number: balance.blockNumber, exchange_rate: null })
    const [newest] = await queries.listCoinBalanceHistory({ address: bytes(address), before: undefined })
    // Blockscout tells of a balance only when it changed.
    if (newest === undefined || newest.block_number < first) continue
    hub.broadcast(topic, 'current_coin_balance', { coin_balance: newest.value, block_number: newest.block_number, exchange_rate: null })
    hub.broadcast(topic, 'coin_balance', { coin_balance: presentCoinBalance(newest) })
  }
}

/** Without the app's decoder (plugins/interpreter), inputs decode by the selector table. */
const TABLE_DECODER = createDecoder({ abiSource: NO_VERIFIED_ABIS })

/** Broadcasts one committed batch to the topics joined. */
export async function broadcastBatch (queries: Queries, hub: ChannelHub, batch: CommittedBlock[], decoder = TABLE_DECODER, names = NO_NAME_READER): Promise<void> {
  const transactions = batch.flatMap((b) => b.transactions)
  const transfers = batch.flatMap((b) => b.tokenTransfers)
  await broadcastBlocks(queries, names, hub, batch)
  broadcastCounts(hub, transactions, transfers)
  const subscribed = (address: string): boolean => hub.hasSubscribers(TOPICS.address(address))
  await broadcastAddressTransactions(queries, decoder, names, hub, transactions, subscribed)
  await broadcastAddressTransfers(queries, decoder, names, hub, transfers, subscribed)
  await broadcastBalances(queries, hub, batch, subscribed)
  if (hub.hasSubscribers(TOPICS.newAddress)) hub.broadcast(TOPICS.newAddress, 'count', { count: Number(await queries.countAddresses()) })
}
