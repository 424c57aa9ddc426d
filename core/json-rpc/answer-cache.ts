// Answers the JSON-RPC endpoint keeps (docs/json-rpc.md, "Answers kept"), as
// the result's JSON text: the handler writes the request's own id around it.
//
// Answers for `latest` are kept until the next head is heard (heard(): Geth's
// newHeads, see head-watch.ts); answers about a block at or below the head
// are kept by bytes (kept-answers.ts), filed under that block's number.
//
// Never older than the head heard: every head starts a new generation, and an
// answer is kept only when the generation it was asked in is still current
// (one asked before the head came may describe the block before it). An
// answer that shows a block newer than the head heard (a receipt, a block, a
// block number: Geth sealed it, the notice is on its way) starts a new
// generation too, before it is sent: a client that saw it then asks for
// latest state gets it from Geth, not what was kept for the head before.
// Identical misses of one generation share one request to Geth (join()).
//
// A head whose parent is not the previous head (a reorg, or heads missed while
// the subscription was down) suspends the cache (nothing served, nothing
// kept) until the fork point is found by comparing the heads heard with
// Geth's canonical hashes; every answer above it is dropped, then the cache
// serves again. While no head is heard (no subscription yet, or it was lost),
// the cache is suspended too: it cannot know when an answer goes stale.
import type { Logger } from '../logger.ts'
import { planCall, resultBlock, type CachePlan } from './cache-plan.ts'
import { createKeptAnswers } from './kept-answers.ts'

export type { CachePlan } from './cache-plan.ts'

/** A head as newHeads announces it. */
export type HeardHead = { number: number, hash: string, parentHash: string }

/**
 * What Geth answered: the result's JSON text (and the result when it was parsed anyway), or its error.
 * `upstream`: another node answered while ours was down (failover.ts): never kept.
 */
export type FreshAnswer = ({ text: string, result?: unknown } | { error: { code: number, message: string, data?: unknown } }) & { upstream?: string }

export type Flight = {
  answer: Promise<FreshAnswer>
  /** Set for the first caller, who asks Geth and settles the flight with what it answered (kept when it may be). */
  settle?: (answer: FreshAnswer) => void
  fail?: (err: unknown) => void
}

export type AnswerCacheStats = {
  hits: number
  misses: number
  /** Misses that joined an identical request already on its way to Geth. */
  joined: number
  /** Answers that could be kept but were not asked while the cache was suspended or without a head. */
  bypassed: number
  reorgs: number
  headEntries: number
  headBytes: number
  entries: number
  bytes: number
}

export type AnswerCache = {
  /** The plan for a call whose answer may be kept now; undefined to forward it as if there were no cache. */
  plan (method: string, params: unknown[]): CachePlan | undefined
  /** The kept result text, or undefined (a miss: join() next). */
  find (plan: CachePlan): string | undefined
  join (plan: CachePlan): Flight
  heard (head: HeardHead): void
  /** The head subscription was lost: heads may be missed until the next one is heard. */
  lost (): void
  /** The newest head heard, while the cache serves. */
  head (): number | undefined
  stats (): AnswerCacheStats
}

export type AnswerCacheOptions = {
  /** Bytes for answers kept past the head; answers for `latest` get a quarter of this beside it. */
  maxBytes: number
  /** The canonical hash of block `number` now (Geth's eth_getBlockByNumber), undefined when there is none. */
  canonicalHash (number: number): Promise<string | undefined>
  log: Logger
}

/** The heads remembered for finding a fork point: a reorg deeper than this drops every kept answer. */
export const HEADS_REMEMBERED = 256
const HEAD_SHARE = 0.25
/** Heads compared per request to Geth while looking for a fork point. */
const FORK_SEARCH_STEP = 8

export function createAnswerCache (o: AnswerCacheOptions): AnswerCache {
  const kept = createKeptAnswers(o.maxBytes)
  const headMaxBytes = Math.floor(o.maxBytes * HEAD_SHARE)
  let headAnswers = new Map<string, string>()
  let headBytes = 0
  let flights = new Map<string, Flight>()
  /** The heads heard, by number: the chain as the cache knows it. */
  const heads = new Map<number, string>()
  /** Numbers of the heads heard, by hash: state asked at one of these blocks may be kept. */
  const numbersByHash = new Map<string, number>()
  /** The last head heard (and checked). */
  let current: HeardHead | undefined
  /** False from a lost subscription until the next head is heard. */
  let live = false
  let generation = 0
  /** Heads waiting for a fork point search; while any does, the cache is suspended. */
  let checking = 0
  let checks: Promise<void> = Promise.resolve()
  /** Set when heads may have been missed: the next one heard is checked as a possible reorg. */
  let mayHaveMissed = false
  /** The newest block an answer showed, which may be newer than the head heard. */
  let newestSeen = 0
  const counts = { hits: 0, misses: 0, joined: 0, bypassed: 0, reorgs: 0 }

  const serving = (): boolean => live && current !== undefined && checking === 0

  function newGeneration (): void {
    generation++
    headAnswers = new Map()
    headBytes = 0
    flights = new Map()
  }

  function remember (head: HeardHead): void {
    heads.set(head.number, head.hash)
    numbersByHash.set(head.hash, head.number)
    if (!heads.has(head.number - 1)) {
      heads.set(head.number - 1, head.parentHash)
      numbersByHash.set(head.parentHash, head.number - 1)
    }
    for (const [number, hash] of heads) {
      if (number > head.number - HEADS_REMEMBERED) break
      heads.delete(number)
      numbersByHash.delete(hash)
    }
  }

  function forgetAbove (block: number): void {
    for (const [number, hash] of [...heads]) {
      if (number <= block) continue
      heads.delete(number)
      numbersByHash.delete(hash)
    }
  }

  /** The highest block heard whose hash is still canonical; undefined when none is. */
  async function findForkPoint (below: number): Promise<number | undefined> {
    const numbers = [...heads.keys()].filter((n) => n <= below).sort((a, b) => b - a)
    for (let i = 0; i < numbers.length; i += FORK_SEARCH_STEP) {
      const step = numbers.slice(i, i + FORK_SEARCH_STEP)
      const canonical = await Promise.all(step.map(async (n) => await o.canonicalHash(n)))
      const found = step.findIndex((n, j) => canonical[j] === heads.get(n))
      if (found >= 0) return step[found]
    }
    return undefined
  }

  /** A head that does not follow the last one: drop what a reorg may have replaced, then serve again. */
  async function reconcile (head: HeardHead): Promise<void> {
    const last = current
    const parentKnown = heads.get(head.number - 1) === head.parentHash
    let fork: number | undefined
    try {
      fork = parentKnown ? head.number - 1 : await findForkPoint(Math.min(head.number - 1, last?.number ?? head.number - 1))
    } catch (err) {
      o.log.warn({ err }, 'json-rpc cache: the fork point could not be found; dropping every kept answer')
    }
    if (fork === undefined) {
      kept.clear()
      heads.clear()
      numbersByHash.clear()
    } else {
      kept.dropAbove(fork)
      forgetAbove(fork)
    }
    if (last !== undefined && (fork === undefined || fork < last.number)) {
      counts.reorgs++
      o.log.info({ head: head.number, fork: fork ?? null, previous: last.number }, 'json-rpc cache: reorg; answers above the fork point dropped')
    }
    remember(head)
    current = head
    // Blocks shown on the replaced branch say nothing of this one.
    newestSeen = Math.min(newestSeen, head.number)
  }

  function heardHead (head: HeardHead): void {
    newGeneration()
    live = true
    const follows = current !== undefined && !mayHaveMissed && checking === 0 &&
      head.number === current.number + 1 && head.parentHash === current.hash
    // The first head ever: nothing was kept before it.
    if (follows || current === undefined) {
      remember(head)
      current = head
      mayHaveMissed = false
      return
    }
    mayHaveMissed = false
    checking++
    checks = checks.then(async () => await reconcile(head)).finally(() => {
      checking--
      // Whatever was asked while suspended may describe the replaced chain.
      if (checking === 0) newGeneration()
    })
  }

  function keep (plan: CachePlan, answer: FreshAnswer, asked: number): void {
    // Another node's answer is of its head, not of the heads this cache hears.
    if ('error' in answer || answer.upstream !== undefined) return
    const block = blockOf(plan, answer)
    // Geth has a block the cache has not heard of yet, and the caller is about to learn of it:
    // what answered for latest may be older than that, so it goes, as for a head heard.
    if (block !== undefined && current !== undefined && block > Math.max(current.number, newestSeen)) {
      newestSeen = block
      newGeneration()
      return
    }
    if (asked !== generation || !serving()) return
    if (plan.scope.kind === 'head') {
      const size = plan.key.length + answer.text.length
      if (headBytes + size > headMaxBytes) return
      headAnswers.set(plan.key, answer.text)
      headBytes += size
      return
    }
    // Null: a block or transaction not there (yet), or undefined: a state at a block hash not heard.
    // Above the head heard: a reorg there would go unnoticed (the fork point is looked for among heads heard).
    if (block === undefined || answer.text === 'null' || block > current!.number) return
    kept.set(plan.key, answer.text, block)
  }

  /** The block an answer is about (the head's for eth_blockNumber and the latest block); undefined when it names none. */
  function blockOf (plan: CachePlan, answer: { text: string, result?: unknown }): number | undefined {
    const { scope } = plan
    if (scope.kind === 'block') return answer.text === 'null' ? undefined : scope.number
    if (scope.kind === 'blockHash') return numbersByHash.get(scope.hash)
    if (scope.kind === 'result') return resultBlock(plan.method, 'result' in answer ? answer.result : JSON.parse(answer.text))
    if (plan.method === 'eth_blockNumber') return Number(JSON.parse(answer.text))
    if (plan.method === 'eth_getBlockByNumber' && 'result' in answer) return resultBlock('eth_getBlockByHash', answer.result)
    return undefined
  }

  return {
    plan (method, params) {
      const plan = planCall(method, params)
      if (plan === undefined) return undefined
      if (!serving()) {
        counts.bypassed++
        return undefined
      }
      return plan
    },
    find (plan) {
      const text = plan.scope.kind === 'head' ? headAnswers.get(plan.key) : kept.get(plan.key)
      if (text === undefined) counts.misses++
      else counts.hits++
      return text
    },
    join (plan) {
      const existing = flights.get(plan.key)
      if (existing !== undefined) {
        counts.joined++
        return { answer: existing.answer }
      }
      const asked = generation
      const started = flights
      let settle!: (answer: FreshAnswer) => void
      let fail!: (err: unknown) => void
      const answer = new Promise<FreshAnswer>((resolve, reject) => { settle = resolve; fail = reject })
      const flight: Flight = {
        answer,
        settle: (fresh) => {
          if (started.get(plan.key) === flight) started.delete(plan.key)
          keep(plan, fresh, asked)
          settle(fresh)
        },
        fail: (err) => {
          if (started.get(plan.key) === flight) started.delete(plan.key)
          fail(err)
        }
      }
      // Nobody else may be waiting: a failure is the first caller's to report.
      answer.catch(() => {})
      flights.set(plan.key, flight)
      return flight
    },
    heard: heardHead,
    lost () {
      newGeneration()
      live = false
      mayHaveMissed = true
    },
    head: () => serving() ? current!.number : undefined,
    stats: () => ({ ...counts, headEntries: headAnswers.size, headBytes, ...kept.stats() })
  }
}
