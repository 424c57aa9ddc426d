// The gateway the proof suites (npm run fuzz, faults, soak) attack: the real
// program as a child process (scripts/lib/gateway-process.ts) on a copy of a
// cached generated chain (scripts/bench/gen-chain.ts: tokens, transfers, reverts)
// and a throwaway database: a scratch one on DATABASE_URL's server, or
// embedded PostgreSQL in the copy's DATA_DIR when DATABASE_URL is unset.
import { chmod, cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../core/db/index.ts'
import { createScratchDatabase } from '../../core/db/scratch.ts'
import { createLogger } from '../../core/logger.ts'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Wallet } from 'ethers'
import { chainConfig } from '../bench/indexer/chain-config.ts'
import { benchSenders } from '../bench/indexer/traffic.ts'
import { GENERATED_CLIQUE_PERIOD, ensureBenchChain, type ChainInfo } from '../bench/gen-chain.ts'
import { startGatewayProcess, waitFor, type GatewayProcess, type GatewayProcessOptions, type Teardown } from '../lib/gateway-process.ts'

const INDEXED_TIMEOUT_MS = 600_000
/** The generated chain's funded senders (scripts/bench/gen-chain.ts). */
const GENERATED_SENDERS = 200
const EXITED_WITHIN_MS = 100

/** Cleanups run last in, first out: the gateway stops before its database is dropped and its directory removed. */
export type Cleanups = Teardown & { run (): Promise<void> }

export function createCleanups (): Cleanups {
  const fns: Array<() => unknown> = []
  let running: Promise<void> | undefined
  const runAll = async (): Promise<void> => {
    for (const fn of fns.reverse()) {
      await Promise.resolve().then(fn).catch((err: unknown) => console.error(`cleanup failed: ${(err as Error).message}`))
    }
  }
  return {
    // Registered after run() began (a scenario still going when Ctrl-C came): undone at once.
    teardown: (fn) => { if (running === undefined) fns.push(fn); else Promise.resolve().then(fn).catch(() => {}) },
    run: async () => await (running ??= runAll())
  }
}

export type ProofChain = { dataDir: string, info: ChainInfo, env: Record<string, string> }

export type ProofChainOptions = {
  blocks: number
  transactions: number
  prefix: string
  /** Embedded PostgreSQL in the copy's DATA_DIR even when DATABASE_URL is set (a scenario kills it). */
  embedded?: boolean
}

/**
 * A private copy of the cached chain (generated once per size) and a database
 * for it; `env` is what the gateway is started with. The copy and the
 * database go with `cleanups`.
 */
export async function prepareProofChain (cleanups: Cleanups, { blocks, transactions, prefix, embedded = false }: ProofChainOptions): Promise<ProofChain> {
  const { cacheDir } = chainConfig({ dataDir: '.', cliquePeriod: GENERATED_CLIQUE_PERIOD }).geth
  const chain = await ensureBenchChain({ cacheDir, blocks, transactions })
  const work = await mkdtemp(join(tmpdir(), `tg-${prefix}-`))
  cleanups.teardown(async () => await rm(work, { recursive: true, force: true }))
  // Embedded PostgreSQL runs as another user and must reach its directory.
  await chmod(work, 0o755)
  const dataDir = join(work, 'chain')
  await cp(chain.dataDir, dataDir, { recursive: true })
  let databaseUrl = ''
  const serverUrl = process.env.DATABASE_URL
  if (!embedded && serverUrl !== undefined && serverUrl !== '') {
    const database = await createScratchDatabase(serverUrl, `tg_${prefix}`)
    cleanups.teardown(database.drop)
    databaseUrl = database.url
  }
  if (databaseUrl === '') {
    // Made and migrated beforehand: on a loaded machine initdb alone can outlast Fastify's 10 s plugin start limit.
    await (await openDatabase({ url: undefined, dataDir, log: createLogger({ level: 'warn' }) })).close()
  }
  const env = {
    DATA_DIR: dataDir,
    GENESIS_ALLOC: join(dataDir, 'alloc.json'),
    CLIQUE_PERIOD: String(GENERATED_CLIQUE_PERIOD),
    GETH_RPC_URL: '',
    DEV_ACCOUNTS_FILE: '',
    HOST: '127.0.0.1',
    PORT: '0',
    // The load comes from one address: the public limit would refuse nearly all of it.
    RATE_LIMIT_ENABLED: 'false',
    DATABASE_URL: databaseUrl
  }
  return { dataDir, info: chain.info, env }
}

/** Starts the gateway on the chain and waits until its index reaches `head` as the writer. */
export async function startIndexedGateway (cleanups: Cleanups, env: Record<string, string>, head: number, options: GatewayProcessOptions = {}): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess(cleanups, env, { servingTimeoutMs: 300_000, ...options })
  await waitForIndexedHead(gateway, head)
  return gateway
}

export async function waitForIndexedHead (gateway: GatewayProcess, head: number, timeoutMs = INDEXED_TIMEOUT_MS): Promise<void> {
  await waitFor(`the index to reach block ${head}`, async () => {
    const { body } = await gateway.health()
    return body.indexer?.role === 'writer' && body.indexer.head >= head ? true : undefined
  }, timeoutMs)
}

/** A whole number >= min from the environment, or the default. */
export function readIntKnob (name: string, fallback: number, min = 1): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number >= ${min}, not ${raw}`)
  return value
}

/** A funded sender of the generated chain for the suites' transfers: the last, which the generator uses least. */
export function proofSender (): Wallet {
  return benchSenders(GENERATED_SENDERS)[GENERATED_SENDERS - 1]!
}

export async function isGatewayAlive (gateway: GatewayProcess): Promise<boolean> {
  return await Promise.race([gateway.exited.then(() => false), sleep(EXITED_WITHIN_MS).then(() => true)])
}
