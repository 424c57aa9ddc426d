// Many blocks quickly on a clique period-0 chain: each round signs one
// transaction per account locally, sends them in one JSON-RPC batch and waits
// for the block that seals them.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Wallet, getCreateAddress, type TransactionRequest } from 'ethers'
import type { RpcClient } from '../../core/rpc/client.ts'
import { CHAIN_ID } from '../../core/config.ts'
import pino from 'pino'
import { loadConfig } from '../../core/config.ts'
import { createGethNode, type GethNode } from '../../geth/node.ts'
import { createTestChainFiles, TEST_ACCOUNT_BALANCE_WEI } from './chain.ts'

type Tap = { teardown (fn: () => unknown): void }

const SEAL_POLL_MS = 5
const SEAL_TIMEOUT_MS = 10_000
/** Nothing more sealed for this long, with transactions pending: the sealer stalled. */
const STALL_MS = 2000
const MAX_FEE_PER_GAS_WEI = 10n ** 10n
const PRIORITY_FEE_PER_GAS_WEI = 10n ** 9n
const TRANSFER_GAS = 21_000n
/**
 * Runtime `PUSH1 0 PUSH1 0 LOG0 STOP` behind an init code that returns it: a
 * contract that logs on every call, so blocks carry logs and call traces.
 */
export const LOGGER_INIT_CODE = '0x6006600c60003960066000f360006000a000'
const LOGGER_CALL_GAS = 30_000n
/** Covers the intrinsic 21000 but not LOG0: the call runs out of gas and fails (status 0). */
const FAILING_CALL_GAS = 21_100n

export type SealedBlocks = { head: number, transactions: number, logger: string }

export type SealBlocksOptions = { rpc: RpcClient, wallets: Wallet[], rounds: number }

/**
 * `rounds` rounds (a round may take two blocks), each with a transaction from
 * every wallet: even ones call a logging contract, odd ones transfer, and with
 * three wallets or more the last one's call fails.
 */
export async function sealBlocks ({ rpc, wallets, rounds }: SealBlocksOptions): Promise<SealedBlocks> {
  const nonces = await Promise.all(wallets.map(async (w) => Number(await rpc.call<string>('eth_getTransactionCount', [w.address, 'pending']))))
  const deployer = wallets[0]!
  const logger = getCreateAddress({ from: deployer.address, nonce: nonces[0]! })
  let head = await sendRound(rpc, [await sign(deployer, { data: LOGGER_INIT_CODE, gasLimit: 100_000n, nonce: nonces[0]!++ })])
  let transactions = 1
  for (let round = 1; round < rounds; round++) {
    const raw = await Promise.all(wallets.map(async (w, i) => await sign(w,
      wallets.length >= 3 && i === wallets.length - 1
        ? { to: logger, gasLimit: FAILING_CALL_GAS, nonce: nonces[i]!++ }
        : i % 2 === 0
          ? { to: logger, gasLimit: LOGGER_CALL_GAS, nonce: nonces[i]!++ }
          : { to: deployer.address, value: 1n, gasLimit: TRANSFER_GAS, nonce: nonces[i]!++ })))
    head = await sendRound(rpc, raw)
    transactions += raw.length
  }
  return { head, transactions, logger }
}

export async function sign (wallet: Wallet, tx: TransactionRequest): Promise<string> {
  return await wallet.signTransaction({
    type: 2,
    chainId: CHAIN_ID,
    maxFeePerGas: MAX_FEE_PER_GAS_WEI,
    maxPriorityFeePerGas: PRIORITY_FEE_PER_GAS_WEI,
    ...tx
  })
}

/**
 * A period-0 clique sealer can stop with transactions pending (go-ethereum#21189);
 * stopping and starting the miner makes it commit the pending ones again.
 */
export async function restartSealing (rpc: RpcClient): Promise<void> {
  await rpc.call('miner_stop', [])
  await rpc.call('miner_start', [])
}

/** Sends signed transactions in one batch; resolves with the highest block once all of them are sealed. */
export async function sendRound (rpc: RpcClient, raw: string[], timeoutMs = SEAL_TIMEOUT_MS): Promise<number> {
  const hashes = await rpc.batch<string>(raw.map((r) => ({ method: 'eth_sendRawTransaction', params: [r] })))
  const deadline = Date.now() + timeoutMs
  let sealed = 0
  let progressAt = Date.now()
  while (Date.now() < deadline) {
    // Right after start Geth answers "transaction indexing is in progress": not sealed yet, as far as we know.
    const receipts = await rpc.batch<{ blockNumber: string } | null>(hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] }))).catch(() => [null])
    if (receipts.every((r) => r !== null)) return Math.max(...receipts.map((r) => Number(r!.blockNumber)))
    const now = receipts.filter((r) => r !== null).length
    if (now > sealed) [sealed, progressAt] = [now, Date.now()]
    else if (Date.now() - progressAt > STALL_MS) {
      await restartSealing(rpc)
      progressAt = Date.now()
    }
    await sleep(SEAL_POLL_MS)
  }
  throw new Error(`transactions ${hashes.join(', ')} were not sealed within ${timeoutMs} ms`)
}

/** `count` wallets funded in a GENESIS_ALLOC file of their own (removed on teardown). */
export async function writeFundedAlloc (t: Tap, count: number): Promise<{ wallets: Wallet[], allocFile: string }> {
  const wallets = Array.from({ length: count }, () => Wallet.createRandom() as unknown as Wallet)
  const dir = await mkdtemp(join(tmpdir(), 'tg-alloc-'))
  t.teardown(async () => await rm(dir, { recursive: true, force: true }))
  const allocFile = join(dir, 'alloc.json')
  await writeFundedAllocFile(allocFile, wallets)
  return { wallets, allocFile }
}

/** A GENESIS_ALLOC file funding each wallet with TEST_ACCOUNT_BALANCE_WEI. */
export async function writeFundedAllocFile (allocFile: string, wallets: Wallet[]): Promise<void> {
  await writeFile(allocFile, JSON.stringify(Object.fromEntries(wallets.map((w) => [w.address, { balance: '0x' + TEST_ACCOUNT_BALANCE_WEI.toString(16) }]))))
}

/** A started Geth on a fresh period-0 chain whose genesis funds `count` wallets; stopped at teardown. */
export async function startFundedNode (t: Tap, count: number): Promise<{ node: GethNode, wallets: Wallet[], dataDir: string, log: pino.Logger }> {
  const chain = await createTestChainFiles(t)
  const { wallets, allocFile } = await writeFundedAlloc(t, count)
  const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'warn' })
  const node = await createGethNode({ config: loadConfig({ ...process.env, ...chain.env, GENESIS_ALLOC: allocFile }), log })
  await node.start()
  t.teardown(async () => await node.stop())
  return { node, wallets, dataDir: chain.dataDir, log }
}
