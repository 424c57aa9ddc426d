// Real contracts and transactions on the bench gateway's chain (gateway.ts),
// for the benchmarks that read what the indexer made of them: the test
// contracts' committed compiler output (paris), transactions signed here by
// the funded account, sent to Geth in batches, and waited for until the
// gateway's own indexer has stored the last of them.
import { readFile } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { Interface, Wallet, getCreateAddress } from 'ethers'
import { CHAIN_ID } from '../../core/config.ts'
import type { RpcClient } from '../../core/rpc/client.ts'
import type { Database } from '../../core/db/index.ts'
import { CONTRACTS_DIR, type CompiledContractFile } from '../lib/test-contracts.ts'
import { sendRawTransactions, waitForEmptyPool } from './indexer/submit.ts'

const MAX_FEE_PER_GAS_WEI = 10n ** 10n
const PRIORITY_FEE_PER_GAS_WEI = 10n ** 9n
const DEPLOY_GAS = 5_000_000n
const CALL_GAS = 2_000_000n
const INDEXED_POLL_MS = 50
const INDEXED_TIMEOUT_MS = 600_000
// A period-0 clique sealer can stop with transactions pending (go-ethereum#21189): it is nudged this often.
const POOL_WAIT_MS = 5_000

/** A committed test contract: its ABI, creation code, source, and the compiler in Blockscout's spelling (v0.8.28+commit.7893614a). */
export type TestContract = { abi: Interface, bytecode: string, source: string, compilerVersion: string }

/** `contract` of test/fixtures/contracts/<file>.sol, as committed beside it. */
export async function readTestContract (file: string, contract: string): Promise<TestContract> {
  const compiled = JSON.parse(await readFile(new URL(`${file}.json`, CONTRACTS_DIR), 'utf8')) as CompiledContractFile
  const found = compiled.contracts[contract]
  if (found === undefined) throw new Error(`${file}.json holds no contract ${contract}`)
  return {
    abi: new Interface(found.abi as never),
    bytecode: found.bytecode,
    source: await readFile(new URL(`${file}.sol`, CONTRACTS_DIR), 'utf8'),
    compilerVersion: 'v' + compiled.solc.replace(/\.Emscripten.*$/, '')
  }
}

export type BenchSender = {
  address: string
  /** Signs a creation; the contract's address is known before it is sealed. */
  deploy (creationCode: string): Promise<{ address: string, raw: string }>
  /** Signs a call. */
  call (to: string, data: string): Promise<string>
  /** Sends what was signed, waits until it is sealed and indexed; returns the transaction hashes in order. */
  flush (raws: string[]): Promise<string[]>
}

export function createBenchSender (rpc: RpcClient, database: Database, privateKey: string): BenchSender {
  const wallet = new Wallet(privateKey)
  // Taken in call order, also by calls made together: the first one's read of the count is shared.
  let first: Promise<number> | undefined
  let taken = 0
  const nextNonce = async (): Promise<number> => {
    first ??= rpc.call<string>('eth_getTransactionCount', [wallet.address, 'pending']).then(Number)
    const offset = taken++
    return await first + offset
  }
  const sign = async (tx: { to?: string, data: string, gasLimit: bigint }): Promise<{ raw: string, nonce: number }> => {
    const n = await nextNonce()
    const raw = await wallet.signTransaction({ type: 2, chainId: CHAIN_ID, maxFeePerGas: MAX_FEE_PER_GAS_WEI, maxPriorityFeePerGas: PRIORITY_FEE_PER_GAS_WEI, nonce: n, ...tx })
    return { raw, nonce: n }
  }
  return {
    address: wallet.address.toLowerCase(),
    async deploy (creationCode) {
      const { raw, nonce: n } = await sign({ data: creationCode, gasLimit: DEPLOY_GAS })
      return { address: getCreateAddress({ from: wallet.address, nonce: n }).toLowerCase(), raw }
    },
    async call (to, data) {
      return (await sign({ to, data, gasLimit: CALL_GAS })).raw
    },
    async flush (raws) {
      const hashes = await sendRawTransactions(rpc, raws)
      await waitForSealed(rpc)
      await checkReceipts(rpc, hashes)
      await waitForIndexed(database, hashes.at(-1)!)
      return hashes
    }
  }
}

async function waitForSealed (rpc: RpcClient): Promise<void> {
  for (;;) {
    try {
      await waitForEmptyPool(rpc, POOL_WAIT_MS)
      return
    } catch {
      await rpc.call('miner_stop', [])
      await rpc.call('miner_start', [])
    }
  }
}

/** A reverted setup transaction would make every figure meaningless. */
async function checkReceipts (rpc: RpcClient, hashes: string[]): Promise<void> {
  const receipts = await rpc.batch<{ status: string } | null>(hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })))
  const failed = hashes.filter((_, i) => receipts[i]?.status !== '0x1')
  if (failed.length > 0) throw new Error(`${failed.length} of ${hashes.length} setup transactions failed, the first ${failed[0]}`)
}

async function waitForIndexed (database: Database, hash: string): Promise<void> {
  const deadline = Date.now() + INDEXED_TIMEOUT_MS
  while (Date.now() < deadline) {
    const { rows } = await database.knex.raw('select 1 from transactions where hash = ?', [Buffer.from(hash.slice(2), 'hex')])
    if (rows.length > 0) return
    await sleep(INDEXED_POLL_MS)
  }
  throw new Error(`transaction ${hash} was not indexed within ${INDEXED_TIMEOUT_MS / 1000} s`)
}
