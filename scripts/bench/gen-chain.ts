// `node --import tsx scripts/gen-chain.ts --blocks 5000 --transactions 50000 [--data-dir <dir>]`:
// builds a Geth chain (clique period 0, archive) of at least that many blocks
// and transactions, mostly ERC-20 transfers from many prefunded senders, for
// the indexer benchmark. Without --data-dir it lands in the Geth cache dir
// (<cacheDir>/bench-chain-<blocks>-<transactions>) and is reused from there.
// A marker file is written only once generation finished and Geth stopped
// cleanly; a directory without one is never used.
import { pathExists } from '../../core/fs/path-exists.ts'
import { chmod, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { CHAIN_ID } from '../../core/config.ts'
import { isProcessAlive } from '../../core/endpoints.ts'
import { createLogger } from '../../core/logger.ts'
import { buildGethArgs } from '../../geth/args.ts'
import { buildGenesis } from '../../geth/genesis.ts'
import { createGethNode } from '../../geth/node.ts'
import type { RpcClient } from '../../core/rpc/client.ts'
import { BENCH_LOG_LEVEL, chainConfig, writeSenderAlloc } from './indexer/chain-config.ts'
import { CALLER_SOURCE, TEST_TOKEN_SOURCE, compileContract } from './indexer/contracts.ts'
import { benchSenders, createTraffic, type TransactionKind } from './indexer/traffic.ts'
import { sendRawTransactions, waitForEmptyPool } from './indexer/submit.ts'

/** Bumped whenever what is generated changes: cached chains of another version are made again. */
export const GENERATOR_VERSION = 2
export const CHAIN_MARKER = 'bench-chain.json'
export const DEFAULT_BLOCKS = 5000
export const DEFAULT_TRANSACTIONS = 50_000
export const GENERATED_CLIQUE_PERIOD = 0
// 100+ senders: a sender's transactions must be sealed in nonce order, many
// senders let any block take any mix.
const SENDER_COUNT = 200
/**
 * A round is meant to be one block, and rounds stay near transactions/blocks;
 * this caps one should the blocks run out first. Far bigger blocks would only
 * measure a limit: the indexer reads the balances a 20-block batch touched in
 * one JSON-RPC batch, and Geth refuses batches of over 1000 calls.
 */
const MAX_ROUND_TRANSACTIONS = 40
const PROGRESS_EVERY_MS = 5000
const COUNT_BATCH = 500
const MS_PER_S = 1000

export type ChainInfo = {
  version: number
  /** How the gateway runs and initialises Geth (flags, genesis rules): a cached chain made otherwise is made again. */
  gethFingerprint: string
  /** What was asked for: at least this many blocks above the genesis and transactions. */
  blocks: number
  transactions: number
  head: number
  transactionCount: number
  cliquePeriod: number
  senders: number
  tokens: string[]
  kinds: Record<TransactionKind, number>
  generationS: number
}

export type GenerateOptions = { dataDir: string, blocks: number, transactions: number, signal?: AbortSignal }

/** Makes the chain in an empty `dataDir` and writes the marker; Geth is stopped before it returns. */
export async function generateChain ({ dataDir, blocks, transactions, signal }: GenerateOptions): Promise<ChainInfo> {
  const startedAt = performance.now()
  await mkdir(dataDir, { recursive: true })
  // Embedded PostgreSQL (the benchmark's app without DATABASE_URL) runs as another user and must reach it.
  await chmod(dataDir, 0o755)
  if (await pathExists(join(dataDir, 'geth', 'geth', 'chaindata'))) throw new Error(`${dataDir} already holds a chain without a ${CHAIN_MARKER}: remove it first`)
  const senders = benchSenders(SENDER_COUNT)
  await writeSenderAlloc(dataDir, senders)
  const config = chainConfig({ dataDir, cliquePeriod: GENERATED_CLIQUE_PERIOD })
  const [token, caller] = await Promise.all([compileContract(TEST_TOKEN_SOURCE, 'TestToken'), compileContract(CALLER_SOURCE, 'Caller')])
  const node = await createGethNode({ config, log: createLogger({ level: BENCH_LOG_LEVEL }) })
  let stopped: Promise<void> | undefined
  const stopNode = async (): Promise<void> => await (stopped ??= node.stop())
  await node.start()
  try {
    const traffic = createTraffic({ chainId: config.chainId, senders, token, caller })
    await sendRawTransactions(node.rpc, traffic.setup())
    await waitForEmptyPool(node.rpc)
    const progress = createGenerationProgress(blocks, transactions)
    let sent = Object.values(traffic.counts).reduce((a, b) => a + b, 0)
    const startHead = await headNumber(node.rpc)
    let head = startHead
    let rounds = 0
    while (head < blocks || sent < transactions) {
      if (signal?.aborted) throw new Error('generation interrupted')
      // Spread what is left evenly over the blocks still wanted, allowing for
      // rounds that clique splits into more than one block all the same.
      const blocksPerRound = rounds === 0 ? 1 : Math.max(1, (head - startHead) / rounds)
      const perRound = Math.ceil(Math.max(0, transactions - sent) / Math.max(1, blocks - head) * blocksPerRound)
      const count = Math.min(MAX_ROUND_TRANSACTIONS, Math.max(1, perRound))
      await sendRawTransactions(node.rpc, traffic.nextRound(count))
      sent += count
      rounds++
      await waitForEmptyPool(node.rpc)
      head = await headNumber(node.rpc)
      progress.report(head, sent)
    }
    const transactionCount = await countTransactions(node.rpc, head)
    const info: ChainInfo = {
      version: GENERATOR_VERSION,
      gethFingerprint: gethFingerprint(),
      blocks,
      transactions,
      head,
      transactionCount,
      cliquePeriod: GENERATED_CLIQUE_PERIOD,
      senders: senders.length,
      tokens: traffic.tokens,
      kinds: { ...traffic.counts },
      generationS: 0
    }
    // Stopped cleanly before the marker: the marker vouches for a chain Geth wrote out.
    await stopNode()
    info.generationS = Math.round((performance.now() - startedAt) / MS_PER_S)
    if (transactionCount !== sent) throw new Error(`sent ${sent} transactions but the chain holds ${transactionCount}`)
    await writeFile(join(dataDir, CHAIN_MARKER), JSON.stringify(info, null, 2) + '\n')
    console.error(`gen-chain: done: ${head} blocks, ${transactionCount} transactions in ${info.generationS} s`)
    return info
  } finally {
    await stopNode()
  }
}

/** The chain's marker, or undefined when it is missing or from another generator version. */
export async function readChainInfo (dataDir: string): Promise<ChainInfo | undefined> {
  try {
    const info = JSON.parse(await readFile(join(dataDir, CHAIN_MARKER), 'utf8')) as ChainInfo
    return info.version === GENERATOR_VERSION && info.gethFingerprint === gethFingerprint() ? info : undefined
  } catch {
    return undefined
  }
}

/**
 * Geth's flags and the genesis the gateway would use for a fixed set of
 * inputs. A change there (say, keeping preimages from `geth init` on) can make
 * an old chain read differently, so it invalidates the cache; reformatting does not.
 */
export function gethFingerprint (): string {
  const zero = '0x' + '00'.repeat(20)
  const args = buildGethArgs({
    gethDir: '/d', keystoreDir: '/k', passwordFile: '/p', signer: zero, chainId: CHAIN_ID, httpPort: 1, wsPort: 2, authPort: 3, gcmode: 'archive', maxPeers: 0
  })
  const genesis = buildGenesis({ chainId: CHAIN_ID, signer: zero, cliquePeriod: GENERATED_CLIQUE_PERIOD, alloc: {} })
  return createHash('sha256').update(JSON.stringify({ args, genesis })).digest('hex').slice(0, 16)
}

export function cachedChainDir (cacheDir: string, blocks: number, transactions: number): string {
  return join(cacheDir, `bench-chain-${blocks}-${transactions}`)
}

export type CachedChain = { dataDir: string, info: ChainInfo, generated: boolean }

/**
 * The cached chain for these parameters, generated first when missing. It is
 * made in a `.partial-<pid>` sibling and renamed into place when complete, so
 * an interrupted generation never leaves a directory that looks usable.
 */
export async function ensureBenchChain (o: { cacheDir: string, blocks: number, transactions: number, signal?: AbortSignal }): Promise<CachedChain> {
  const dataDir = cachedChainDir(o.cacheDir, o.blocks, o.transactions)
  const cached = await readChainInfo(dataDir)
  if (cached !== undefined) return { dataDir, info: cached, generated: false }
  await removeAbandonedPartials(dataDir)
  const partial = `${dataDir}.partial-${process.pid}`
  await rm(partial, { recursive: true, force: true })
  console.error(`gen-chain: no cached chain at ${dataDir}; generating ${o.blocks} blocks and ${o.transactions} transactions (once)`)
  try {
    const info = await generateChain({ dataDir: partial, blocks: o.blocks, transactions: o.transactions, signal: o.signal })
    // An older version or an unfinished directory at the final name is replaced.
    await rm(dataDir, { recursive: true, force: true })
    await rename(partial, dataDir)
    return { dataDir, info, generated: true }
  } catch (err) {
    await rm(partial, { recursive: true, force: true })
    throw err
  }
}

/** `.partial-<pid>` siblings whose generating process is gone. */
async function removeAbandonedPartials (dataDir: string): Promise<void> {
  const parent = join(dataDir, '..')
  const prefix = `${dataDir.slice(parent.length + 1)}.partial-`
  await mkdir(parent, { recursive: true })
  for (const name of await readdir(parent)) {
    if (!name.startsWith(prefix)) continue
    const pid = Number(name.slice(prefix.length))
    if (Number.isInteger(pid) && pid !== process.pid && isProcessAlive(pid)) continue
    await rm(join(parent, name), { recursive: true, force: true })
  }
}

function createGenerationProgress (blocks: number, transactions: number) {
  const startedAt = performance.now()
  let lastAt = startedAt
  return {
    report (head: number, sent: number): void {
      const now = performance.now()
      if (now - lastAt < PROGRESS_EVERY_MS) return
      lastAt = now
      const elapsedS = (now - startedAt) / MS_PER_S
      const blocksPerS = head / elapsedS
      const txPerS = sent / elapsedS
      const leftS = Math.max((blocks - head) / blocksPerS, (transactions - sent) / txPerS, 0)
      console.error(`gen-chain: block ${head}/${blocks}, ${sent}/${transactions} transactions, ` +
        `${txPerS.toFixed(0)} tx/s, ${blocksPerS.toFixed(1)} blocks/s, ~${leftS.toFixed(0)} s left`)
    }
  }
}

async function headNumber (rpc: RpcClient): Promise<number> {
  return Number(await rpc.call<string>('eth_blockNumber'))
}

/** What the chain really holds, counted block by block. */
async function countTransactions (rpc: RpcClient, head: number): Promise<number> {
  let total = 0
  for (let from = 0; from <= head; from += COUNT_BATCH) {
    const numbers = Array.from({ length: Math.min(COUNT_BATCH, head - from + 1) }, (_, i) => from + i)
    const counts = await rpc.batch<string>(numbers.map((n) => ({ method: 'eth_getBlockTransactionCountByNumber', params: ['0x' + n.toString(16)] })))
    total += counts.reduce((sum, c) => sum + Number(c), 0)
  }
  return total
}

function positiveInteger (name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number >= 1, not ${raw}`)
  return value
}

/** The command (scripts/gen-chain.ts runs it): its exit code. */
export async function main (): Promise<number> {
  const { values } = parseArgs({
    options: { blocks: { type: 'string' }, transactions: { type: 'string' }, 'data-dir': { type: 'string' } }
  })
  const blocks = positiveInteger('blocks', values.blocks, DEFAULT_BLOCKS)
  const transactions = positiveInteger('transactions', values.transactions, DEFAULT_TRANSACTIONS)
  const controller = new AbortController()
  // Ctrl-C: the generation loop stops at the next round and Geth is stopped cleanly.
  process.once('SIGINT', () => controller.abort())
  process.once('SIGTERM', () => controller.abort())
  try {
    if (values['data-dir'] === undefined) {
      const { cacheDir } = chainConfig({ dataDir: '.', cliquePeriod: GENERATED_CLIQUE_PERIOD }).geth
      const chain = await ensureBenchChain({ cacheDir, blocks, transactions, signal: controller.signal })
      console.log(JSON.stringify({ dataDir: chain.dataDir, generated: chain.generated, ...chain.info }))
      return 0
    }
    const dataDir = values['data-dir']
    const existing = await readChainInfo(dataDir)
    if (existing !== undefined && existing.blocks === blocks && existing.transactions === transactions) {
      console.error(`gen-chain: ${dataDir} already holds this chain`)
      console.log(JSON.stringify({ dataDir, generated: false, ...existing }))
      return 0
    }
    const info = await generateChain({ dataDir, blocks, transactions, signal: controller.signal })
    console.log(JSON.stringify({ dataDir, generated: true, ...info }))
    return 0
  } catch (err) {
    console.error(`gen-chain failed: ${(err as Error).stack ?? String(err)}`)
    return 1
  }
}
