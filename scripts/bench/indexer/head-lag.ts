// Head lag: how long after Geth seals a block it is queryable in PostgreSQL.
// A fresh chain with clique period 1 and a fresh database, the gateway's
// indexer following it, a steady trickle of transactions; each new head is
// timed from Geth's newHeads notification (WebSocket) to the moment a query
// on another connection finds it (polled), and, for comparison, to the
// indexer's own `blocks` event after its commit.
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { WebSocket } from 'undici'
import { openDatabase } from '../../../core/db/index.ts'
import { createIndexer } from '../../../core/indexer/index.ts'
import { createGethNode } from '../../../geth/node.ts'
import { chainConfig, writeSenderAlloc } from './chain-config.ts'
import { createBenchLogger } from './log.ts'
import { CALLER_SOURCE, TEST_TOKEN_SOURCE, compileContract } from './contracts.ts'
import { benchSenders, createTraffic } from './traffic.ts'
import { sendRawTransactions, waitForEmptyPool } from './submit.ts'
import { waitForIndexed } from './wait.ts'
import { percentile } from './stats.ts'

const CLIQUE_PERIOD_S = 1
const SENDERS = 20
/** How often the database is asked for its highest block: the resolution of "queryable". */
const POLL_MS = 5
const CATCH_UP_TIMEOUT_MS = 60_000
/** After the load stops, how long the last heads may take to appear. */
const SETTLE_MS = 5000
const SUBSCRIBE_TIMEOUT_MS = 10_000

export type LagFigures = { samples: number, p50Ms: number, p99Ms: number, maxMs: number }

export type HeadLagResult = {
  durationS: number
  transactionsPerS: number
  pollMs: number
  blocks: number
  transactions: number
  /** newHeads to found by a query on its own connection. */
  queryable: LagFigures
  /** newHeads to the indexer's `blocks` event (after commit, same process). */
  committed: LagFigures
  /** Heads never found within the settle time. */
  missing: number
}

export type HeadLagOptions = { databaseUrl: string, durationS: number, transactionsPerS: number }

type Cleanup = () => Promise<unknown>

export async function measureHeadLag (o: HeadLagOptions): Promise<HeadLagResult> {
  const cleanups: Cleanup[] = []
  try {
    return await run(o, cleanups)
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err: unknown) => console.error(`cleanup failed: ${(err as Error).message}`))
  }
}

async function run (o: HeadLagOptions, cleanups: Cleanup[]): Promise<HeadLagResult> {
  const { log, lastWarning } = createBenchLogger()
  const dataDir = await mkdtemp(join(tmpdir(), 'tg-bench-lag-'))
  cleanups.push(async () => await rm(dataDir, { recursive: true, force: true }))
  await chmod(dataDir, 0o755)
  const senders = benchSenders(SENDERS)
  await writeSenderAlloc(dataDir, senders)
  const config = chainConfig({ dataDir, cliquePeriod: CLIQUE_PERIOD_S })
  const [token, caller] = await Promise.all([compileContract(TEST_TOKEN_SOURCE, 'TestToken'), compileContract(CALLER_SOURCE, 'Caller')])
  const node = await createGethNode({ config, log })
  cleanups.push(async () => await node.stop())
  await node.start()
  const database = await openDatabase({ url: o.databaseUrl, dataDir, log })
  cleanups.push(async () => await database.close())

  // Contracts and token balances first, so that the measured blocks hold transfers.
  const traffic = createTraffic({ chainId: config.chainId, senders, token, caller })
  await sendRawTransactions(node.rpc, traffic.setup())
  await waitForEmptyPool(node.rpc, CATCH_UP_TIMEOUT_MS)

  // As the gateway's indexer plugin makes it: woken by Geth's newHeads, polling as the fallback.
  const indexer = createIndexer({ db: database.knex, databaseUrl: database.url, rpc: node.rpc, wsUrl: node.wsUrl, log })
  cleanups.push(async () => await indexer.stop())
  indexer.start()
  await waitForIndexed(indexer, Number(await node.rpc.call<string>('eth_blockNumber')), { timeoutMs: CATCH_UP_TIMEOUT_MS, lastWarning })

  const sealedAt = new Map<number, number>()
  const queryableAt = new Map<number, number>()
  const committedAt = new Map<number, number>()
  const transactionsIn = new Map<number, number>()
  let measuring = true
  // Only heads sealed from now on are announced: every one is measured.
  const ws = await subscribeNewHeads(node.wsUrl!, (number, at) => {
    if (measuring && !sealedAt.has(number)) sealedAt.set(number, at)
  })
  cleanups.push(async () => ws.close())
  indexer.events.subscribe((event) => {
    if (event.type !== 'block') return
    const at = performance.now()
    for (const { block, transactions } of event.blocks) {
      committedAt.set(block.number, at)
      transactionsIn.set(block.number, transactions.length)
    }
  })

  const client = new pg.Client({ connectionString: o.databaseUrl })
  await client.connect()
  cleanups.push(async () => await client.end())
  const stopPolling = new AbortController()
  const poller = (async () => {
    while (!stopPolling.signal.aborted) {
      const { rows } = await client.query<{ number: string }>('select number from blocks order by number desc limit 1')
      const at = performance.now()
      const top = rows.length === 0 ? -1 : Number(rows[0]!.number)
      for (const number of sealedAt.keys()) if (number <= top && !queryableAt.has(number)) queryableAt.set(number, at)
      await sleep(POLL_MS)
    }
  })()
  // Awaited below, where a failed query surfaces; until then it must not count as unhandled.
  poller.catch(() => {})

  // A steady trickle, one transaction at a time, in order (nonces).
  let sending = Promise.resolve()
  let sendError: Error | undefined
  const trickle = setInterval(() => {
    sending = sending.then(async () => { await sendRawTransactions(node.rpc, traffic.next(1)) }).catch((err: Error) => { sendError ??= err })
  }, 1000 / o.transactionsPerS)
  await sleep(o.durationS * 1000)
  clearInterval(trickle)
  measuring = false
  await sending
  if (sendError !== undefined) throw sendError
  const settleUntil = performance.now() + SETTLE_MS
  while (performance.now() < settleUntil && [...sealedAt.keys()].some((n) => !queryableAt.has(n) || !committedAt.has(n))) await sleep(POLL_MS)
  stopPolling.abort()
  await poller

  const numbers = [...sealedAt.keys()]
  const lags = (done: Map<number, number>): number[] => numbers.filter((n) => done.has(n)).map((n) => done.get(n)! - sealedAt.get(n)!)
  return {
    durationS: o.durationS,
    transactionsPerS: o.transactionsPerS,
    pollMs: POLL_MS,
    blocks: numbers.length,
    transactions: numbers.reduce((sum, n) => sum + (transactionsIn.get(n) ?? 0), 0),
    queryable: figures(lags(queryableAt)),
    committed: figures(lags(committedAt)),
    missing: numbers.filter((n) => !queryableAt.has(n)).length
  }
}

function figures (lagsMs: number[]): LagFigures {
  const sorted = Float64Array.from(lagsMs).sort()
  return { samples: sorted.length, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), maxMs: percentile(sorted, 1) }
}

/** Geth's newHeads over its WebSocket endpoint; `onHead` gets each block number and when it arrived. */
async function subscribeNewHeads (url: string, onHead: (number: number, at: number) => void): Promise<WebSocket> {
  const ws = new WebSocket(url)
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no newHeads subscription from ${url} within ${SUBSCRIBE_TIMEOUT_MS} ms`)), SUBSCRIBE_TIMEOUT_MS)
    ws.addEventListener('error', () => { clearTimeout(timer); reject(new Error(`WebSocket to ${url} failed`)) })
    ws.addEventListener('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })))
    ws.addEventListener('message', (event) => {
      const at = performance.now()
      const message = JSON.parse(String(event.data)) as { id?: number, result?: string, error?: { message: string }, params?: { result: { number: string } } }
      if (message.id === 1) {
        clearTimeout(timer)
        if (message.error !== undefined) reject(new Error(`eth_subscribe: ${message.error.message}`))
        else resolve()
        return
      }
      if (message.params !== undefined) onHead(Number(message.params.result.number), at)
    })
  })
  return ws
}
