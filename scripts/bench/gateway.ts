// The gateway under test: the real app, in this process, on a throwaway chain
// (temporary DATA_DIR, a funded account in GENESIS_ALLOC, clique period 0) and
// a throwaway database, with a few transactions so that state is not empty.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { JsonRpcProvider, Wallet } from 'ethers'
import { CHAIN_ID, loadConfig } from '../../core/config.ts'
import { createLogger } from '../../core/logger.ts'
import { buildApp } from '../../plugins/index.ts'
import { createScratchDatabase } from '../../core/db/scratch.ts'

const LOG_LEVEL = 'warn'
const FUNDED_BALANCE_WEI = 10n ** 24n
const SEED_TRANSACTIONS = 5
const SEED_VALUE_WEI = 10n ** 18n
// ethers polls for receipts every 4 s by default; clique period 0 seals at once.
const RECEIPT_POLL_MS = 100

export type BenchGateway = {
  app: FastifyInstance
  /** The public endpoint, <gateway>/rpc. */
  gatewayUrl: string
  /** Geth's own HTTP RPC, which the gateway forwards to. */
  gethUrl: string
  gethPid: number | undefined
  /** Received a seed transaction: eth_getBalance has something to find. */
  fundedAddress: string
  /** The private key of the account the genesis funded (it sent the seed transactions). */
  senderKey: string
  /** Closes the app (Geth, embedded PostgreSQL), drops the database, removes DATA_DIR. Safe to call twice. */
  close (): Promise<void>
}

type Cleanup = () => Promise<unknown>

export async function startBenchGateway (): Promise<BenchGateway> {
  const cleanups: Cleanup[] = []
  let closing: Promise<void> | undefined
  // A signal and the normal path may both close: the second waits for the first.
  const close = async (): Promise<void> => await (closing ??= runCleanups(cleanups))
  try {
    const dataDir = await mkdtemp(join(tmpdir(), 'tg-bench-'))
    cleanups.push(async () => await rm(dataDir, { recursive: true, force: true }))
    // Embedded PostgreSQL runs as another user and must reach its directory.
    await chmod(dataDir, 0o755)
    const account = Wallet.createRandom()
    const allocFile = join(dataDir, 'alloc.json')
    await writeFile(allocFile, JSON.stringify({ [account.address]: { balance: '0x' + FUNDED_BALANCE_WEI.toString(16) } }))
    const databaseUrl = await createDatabase(cleanups)
    const config = loadConfig({
      ...process.env,
      DATA_DIR: dataDir,
      GENESIS_ALLOC: allocFile,
      CLIQUE_PERIOD: '0',
      PORT: '0',
      LOG_LEVEL,
      // The benchmarks' load comes from one address: the public limit would refuse nearly all of it.
      RATE_LIMIT_ENABLED: 'false',
      // Empty means unset: the app starts an embedded PostgreSQL in DATA_DIR.
      DATABASE_URL: databaseUrl ?? ''
    })
    const app = await buildApp(config, { logger: createLogger({ level: LOG_LEVEL }) })
    cleanups.push(async () => await app.close())
    await app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = app.server.address() as { port: number }
    const gatewayUrl = `http://127.0.0.1:${port}/rpc`
    const fundedAddress = await seedChain(gatewayUrl, account.privateKey)
    return { app, gatewayUrl, gethUrl: app.geth.rpc.url, gethPid: app.geth.supervisor?.pid, fundedAddress, senderKey: account.privateKey, close }
  } catch (err) {
    await close()
    throw err
  }
}

/** Last in, first out: the app stops before its database is dropped and its directory removed. */
async function runCleanups (cleanups: Cleanup[]): Promise<void> {
  for (const cleanup of cleanups.reverse()) {
    await cleanup().catch((err: unknown) => console.error(`cleanup failed: ${(err as Error).message}`))
  }
}

/** A fresh database on DATABASE_URL's server, dropped on close; undefined (embedded) when it is unset. */
async function createDatabase (cleanups: Cleanup[]): Promise<string | undefined> {
  const serverUrl = process.env.DATABASE_URL
  if (serverUrl === undefined || serverUrl === '') return undefined
  const database = await createScratchDatabase(serverUrl, 'tg_bench')
  cleanups.push(database.drop)
  return database.url
}

/** Sends a few transfers through the gateway, one block each; returns the first recipient. */
async function seedChain (gatewayUrl: string, privateKey: string): Promise<string> {
  const provider = new JsonRpcProvider(gatewayUrl, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1, pollingInterval: RECEIPT_POLL_MS })
  try {
    const sender = new Wallet(privateKey, provider)
    const recipients = Array.from({ length: SEED_TRANSACTIONS }, () => Wallet.createRandom().address)
    for (const to of recipients) {
      const receipt = await (await sender.sendTransaction({ to, value: SEED_VALUE_WEI })).wait()
      if (receipt?.status !== 1) throw new Error(`seed transaction to ${to} failed`)
    }
    return recipients[0]!
  } finally {
    provider.destroy()
  }
}
