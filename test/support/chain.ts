// Test chains: a temporary data directory, a funded account in GENESIS_ALLOC
// and clique period 0 (a block as soon as a transaction is pending).
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Wallet, type TransactionReceipt } from 'ethers'
import { refuseInUnitRun } from './unit-run.ts'

type Tap = { teardown (fn: () => unknown): void }

export const TEST_ACCOUNT_BALANCE_WEI = 10n ** 24n
const RECEIPT_POLL_MS = 20
/** No receipt for this long on a period-0 chain: the sealer may have stalled. */
const STALL_MS = 2000

export type TestChainFiles = { dataDir: string, allocFile: string, account: Wallet, env: Record<string, string> }

export async function createTestChainFiles (t: Tap): Promise<TestChainFiles> {
  refuseInUnitRun('a Geth chain')
  const dataDir = await mkdtemp(join(tmpdir(), 'tg-data-'))
  // Embedded PostgreSQL runs as another user and must reach its directory.
  await chmod(dataDir, 0o755)
  t.teardown(async () => await rm(dataDir, { recursive: true, force: true }))
  const account = Wallet.createRandom() as unknown as Wallet
  const allocFile = join(dataDir, 'alloc.json')
  await writeFile(allocFile, JSON.stringify({ [account.address]: { balance: '0x' + TEST_ACCOUNT_BALANCE_WEI.toString(16) } }))
  return testChainFilesIn(dataDir, allocFile, account)
}

/** The chain files of a data directory made beforehand (a fixture template or its clone). */
export function testChainFilesIn (dataDir: string, allocFile: string, account: Wallet): TestChainFiles {
  return {
    dataDir,
    allocFile,
    account,
    env: { DATA_DIR: dataDir, GENESIS_ALLOC: allocFile, CLIQUE_PERIOD: '0', PORT: '0', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn' }
  }
}

type ReceiptSource = { getTransactionReceipt (hash: string): Promise<TransactionReceipt | null> }

/**
 * Polls for the receipt. Not ethers' tx.wait(): with clique period 0 no later
 * block comes, and a block sealed between wait()'s first receipt check and its
 * block poller's first look is never announced, so wait() can hang.
 */
/**
 * Polls for a receipt. `onStall` runs when none came for STALL_MS (a period-0
 * sealer that stopped with transactions pending: see restartSealing in blocks.ts).
 */
export async function waitForReceipt (provider: ReceiptSource, hash: string, timeoutMs = 60_000, onStall?: () => Promise<void>): Promise<TransactionReceipt> {
  const deadline = Date.now() + timeoutMs
  let stallAt = Date.now() + STALL_MS
  while (Date.now() < deadline) {
    if (onStall !== undefined && Date.now() > stallAt) {
      await onStall()
      stallAt = Date.now() + STALL_MS
    }
    const receipt = await provider.getTransactionReceipt(hash).catch((err: Error) => {
      // Right after start Geth answers "transaction indexing is in progress": not known yet.
      if (/indexing is in progress/.test(err.message)) return null
      throw err
    })
    if (receipt !== null) return receipt
    await sleep(RECEIPT_POLL_MS)
  }
  throw new Error(`no receipt for ${hash} within ${timeoutMs} ms`)
}
