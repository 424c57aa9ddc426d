// The interpreter service: a transaction's summaries (cached in PostgreSQL),
// its whole interpretation (the facts, decoded and named, with the
// summaries), and an address's interpretations newest first. The summaries
// themselves come from the pure summarize() over facts read by loadFacts().
import { checksumAddress } from '../decode/checksum.ts'
import type { Knex } from 'knex'
import type { Decoder } from '../decode/index.ts'
import { type AddressTransactionKey } from '../queries/transactions/interpretation.ts'
import { loadFacts, loadFactsOf, type LoadedFacts } from './facts.ts'
import { summarize } from './summarize.ts'
import { renderSummary } from './render.ts'
import { bumpInterpretationGeneration, invalidateInterpretations, readCachedSummaries, writeCachedSummaries, type CachedSummaries } from './cache.ts'
import type { AddressParam, InterpretationFacts, Summary, TokenFacts } from './types.ts'
import { tokenVariable } from './variables.ts'
import type { Queries } from '../queries/index.ts'
import type { RpcClient } from '../rpc/client.ts'
import { isPendingTransaction } from './pending.ts'

export { invalidateInterpretations, bumpInterpretationGeneration } from './cache.ts'
export { summarize } from './summarize.ts'
export { renderSummary } from './render.ts'
export type { Summary, SummaryVariable, InterpretationFacts, AddressParam, TokenParam } from './types.ts'

/** Interpretations of an address, a page. */
export const INTERPRETATIONS_PAGE_SIZE = 20
/** An interpretation lists at most this many logs and inner calls (Blockscout sends its interpreter 50). */
const MAX_LISTED = 50

/** `rpc`: the node, asked about a transaction the index does not hold (pending or unknown); without it, such a one is unknown. */
export type InterpreterOptions = { db: Knex, queries: Queries, decoder: Decoder, coinSymbol: string, rpc?: RpcClient }

/** A summary answer: undefined for an unknown transaction, null for one that did not succeed or is pending (as Blockscout). */
export type SummaryAnswer = Summary[] | null | undefined

export type Interpreter = {
  summaries (hash: string): Promise<SummaryAnswer>
  interpretation (hash: string): Promise<Interpretation | undefined>
  addressInterpretations (address: string, cursor: AddressTransactionKey | undefined): Promise<{ items: Interpretation[], next: AddressTransactionKey | null }>
  /** After verification stored contracts at `addresses`: forgets their decodings and the summaries naming them. */
  invalidate (addresses: readonly string[]): Promise<number>
  /** Makes every cached summary stale. */
  invalidateAll (): Promise<void>
}

export type Interpretation = ReturnType<typeof presentInterpretation>

const addressOf = (facts: InterpretationFacts, address: string | null): AddressParam | null =>
  address === null ? null : facts.addresses.get(address) ?? { hash: checksumAddress(address), name: null, is_contract: false, is_verified: false }
const tokenOf = (token: TokenFacts) => tokenVariable(token).value

function presentInterpretation ({ row, facts }: LoadedFacts, summaries: Summary[] | null, coinSymbol: string) {
  return {
    transaction: {
      hash: row.hash,
      block_number: row.block_number,
      block_hash: row.block_hash,
      position: row.transaction_index,
      timestamp: new Date(row.timestamp * 1000).toISOString(),
      status: facts.transaction.status,
      error: row.error,
      from: addressOf(facts, row.from)!,
      to: addressOf(facts, row.to),
      created_contract: addressOf(facts, row.created_contract),
      value: row.value,
      raw_input: row.input
    },
    decoded_input: facts.decodedInput,
    token_transfers: facts.tokenTransfers.map((t) => ({
      log_index: t.logIndex, token: tokenOf(t.token), from: addressOf(facts, t.from)!, to: addressOf(facts, t.to)!, amount: t.amount, token_id: t.tokenId
    })),
    logs: facts.logs.slice(0, MAX_LISTED).map((l) => ({ index: l.index, address: addressOf(facts, l.address)!, topics: l.topics, data: l.data, decoded: l.decoded })),
    internal_calls: facts.internalCalls.slice(0, MAX_LISTED).map((c) => ({
      index: c.traceIndex, type: c.type, from: addressOf(facts, c.from)!, to: addressOf(facts, c.to), created_contract: addressOf(facts, c.createdContract), value: c.value, error: c.error, success: c.error === null
    })),
    addresses: [...facts.addresses.values()],
    summaries,
    summaries_text: summaries?.map((s) => renderSummary(s, coinSymbol)) ?? null
  }
}

export function createInterpreter ({ db, queries, decoder, coinSymbol, rpc }: InterpreterOptions): Interpreter {
  // The generation this instance's decodings and names are as fresh as. Another instance bumps it after
  // storing a verification, perhaps before its notice arrives here: whoever first reads the new one forgets them.
  let decodedAt: string | undefined
  function catchUp (generation: string): void {
    if (generation === decodedAt) return
    decoder.clear()
    decodedAt = generation
  }

  /** The cached summaries when current, and the current generation, caught up with before any facts are loaded. */
  async function cachedSummaries (hash: string): Promise<CachedSummaries> {
    const cached = await readCachedSummaries(db, hash)
    catchUp(cached.generation)
    return cached
  }

  /** Summaries of facts loaded after `cached` was read: the cached ones when current, else written now and kept. */
  async function summariesOf (loaded: LoadedFacts, cached: CachedSummaries): Promise<Summary[] | null> {
    if (loaded.facts.transaction.status !== 'ok') return null
    if (cached.summaries !== undefined) return cached.summaries
    const summaries = summarize(loaded.facts)
    await writeCachedSummaries(db, loaded.row.hash, summaries, [...loaded.facts.addresses.keys()], cached.generation)
    return summaries
  }

  async function interpretation (hash: string): Promise<Interpretation | undefined> {
    const cached = await cachedSummaries(hash)
    const loaded = await loadFacts(queries, decoder, Buffer.from(hash.slice(2), 'hex'), coinSymbol)
    return loaded === undefined ? undefined : presentInterpretation(loaded, await summariesOf(loaded, cached), coinSymbol)
  }

  return {
    async summaries (hash) {
      // A cached row exists only for a transaction that succeeded: one read answers.
      const cached = await cachedSummaries(hash.toLowerCase())
      if (cached.summaries !== undefined) return cached.summaries
      // A failed transaction has no summary and none is cached: its row alone answers.
      const row = await queries.findInterpretedTransaction(Buffer.from(hash.slice(2), 'hex'))
      // Not indexed: pending in the node's pool (no summary yet, as Blockscout), else unknown.
      if (row === undefined) return rpc !== undefined && await isPendingTransaction(rpc, hash) ? null : undefined
      if (row.status !== 1) return null
      return await summariesOf(await loadFactsOf(queries, decoder, row, coinSymbol), cached)
    },
    interpretation,
    async addressInterpretations (address, cursor) {
      const rows = await queries.listAddressTransactionHashes({ address: Buffer.from(address.slice(2), 'hex'), cursor, limit: INTERPRETATIONS_PAGE_SIZE })
      const page = rows.slice(0, INTERPRETATIONS_PAGE_SIZE)
      // A transaction a reorg took since the page was read is left out.
      const items = (await Promise.all(page.map(async (r) => await interpretation(r.hash)))).filter((i) => i !== undefined)
      const last = page.at(-1)
      return { items, next: rows.length > INTERPRETATIONS_PAGE_SIZE && last !== undefined ? { blockNumber: last.block_number, index: last.transaction_index } : null }
    },
    async invalidate (addresses) {
      decoder.clear()
      return await invalidateInterpretations(db, addresses)
    },
    async invalidateAll () {
      decoder.clear()
      await bumpInterpretationGeneration(db)
    }
  }
}
