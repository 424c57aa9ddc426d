// bench:rpc's workloads (issue 34): each method a wallet or dapp repeats, a
// wallet's mix, and a cold stream of unique eth_calls that no cache can
// help. Each workload makes the same load for either side (direct Geth or
// the gateway); the mix's sends are signed afresh for every side and round.
import { JsonRpcProvider, Wallet, getCreateAddress, zeroPadValue } from 'ethers'
import { CHAIN_ID } from '../../core/config.ts'
import type { LoadJob } from './load-generator.ts'

export type Side = 'direct' | 'gateway'

/** The load of one side, for one round: everything but the duration. */
export type SideJob = Omit<LoadJob, 'durationS'>

export type RpcWorkload = {
  name: string
  /** The gateway's req/s over Geth's the workload must reach. */
  target: number
  /** Called once per side and round, before its warm-up. */
  job (url: string, side: Side, round: number): Promise<SideJob>
}

/** What the workloads read: the bench chain after prepareWorkloads(). */
export type WorkloadChain = {
  gethUrl: string
  senderKey: string
  fundedAddress: string
  /** A contract whose balanceOf(address) (0x70a08231) answers that address's balance. */
  token: string
  /** Mined transactions: the wallet's "recent transaction" and eth_getTransactionReceipt's. */
  minedTransactions: string[]
  /** Accounts with a balance, one per simulated user. */
  users: string[]
}

export const TARGET_METHOD_RATIO = 1.0
export const TARGET_MIX_RATIO = 1.5
export const TARGET_COLD_RATIO = 0.9
export const CONNECTIONS = 32
/** Parsing every body would cost the load generator CPU the runs compete for. */
export const SAMPLE_EVERY = 100
const USERS = 100
/** Of the wallet's calls, this share are eth_sendRawTransaction: 18 sends among 600 reads. */
const SENDS_PER_LIST = 18
const BALANCE_OF = '0x70a08231'
/** Runtime `PUSH1 4 CALLDATALOAD BALANCE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN`: balanceOf(a) is a's balance. */
const TOKEN_RUNTIME = '6004353160005260206000f3'
/** PUSH12 the runtime, PUSH1 0 MSTORE, then RETURN its 12 bytes, which MSTORE right-aligned at 20. */
const TOKEN_INIT_CODE = '0x6b' + TOKEN_RUNTIME + '600052' + '600c6014f3'
const USER_FUNDS_WEI = 10n ** 15n
const MAX_FEE_PER_GAS_WEI = 10n ** 10n
const PRIORITY_FEE_PER_GAS_WEI = 10n ** 9n
const RECEIPT_POLL_MS = 50

const body = (method: string, params: unknown[]): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })
const balanceOf = (address: string): string => BALANCE_OF + zeroPadValue(address, 32).slice(2)

/** Deploys the token contract and funds the users through Geth; returns what the workloads read. */
export async function prepareWorkloads (gethUrl: string, senderKey: string, fundedAddress: string): Promise<WorkloadChain> {
  const provider = new JsonRpcProvider(gethUrl, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1, pollingInterval: RECEIPT_POLL_MS })
  try {
    const sender = new Wallet(senderKey, provider)
    let nonce = await provider.getTransactionCount(sender.address, 'pending')
    const token = getCreateAddress({ from: sender.address, nonce })
    const deployment = await sender.sendTransaction({ data: TOKEN_INIT_CODE, gasLimit: 100_000n, nonce: nonce++ })
    const users = Array.from({ length: USERS }, () => Wallet.createRandom().address)
    // One after the other: sent together they reach Geth in any order, and with --txpool.nolocals a remote
    // account's transactions beyond a nonce gap are queued at most 64 deep (--txpool.accountqueue) and the
    // rest dropped, never to be mined.
    const funding = []
    for (const to of users) funding.push(await sender.sendTransaction({ to, value: USER_FUNDS_WEI, nonce: nonce++ }))
    const receipts = await Promise.all([deployment, ...funding].map(async (tx) => await tx.wait()))
    if (receipts.some((r) => r?.status !== 1)) throw new Error('preparing the workloads: a transaction failed')
    if (await provider.getCode(token) === '0x') throw new Error('preparing the workloads: the token contract has no code')
    return { gethUrl, senderKey, fundedAddress, token, minedTransactions: funding.slice(0, 10).map((tx) => tx.hash), users }
  } finally {
    provider.destroy()
  }
}

/** One request of the same body, for each method the issue lists. */
function methodWorkload (name: string, call: string): RpcWorkload {
  const job: SideJob = { url: '', body: call, connections: CONNECTIONS, sampleEvery: SAMPLE_EVERY }
  return { name, target: TARGET_METHOD_RATIO, job: async (url) => ({ ...job, url }) }
}

export function methodWorkloads (chain: WorkloadChain): RpcWorkload[] {
  return [
    methodWorkload('eth_blockNumber', body('eth_blockNumber', [])),
    methodWorkload('eth_chainId', body('eth_chainId', [])),
    methodWorkload('eth_getBalance', body('eth_getBalance', [chain.fundedAddress, 'latest'])),
    methodWorkload('eth_call', body('eth_call', [{ to: chain.token, data: balanceOf(chain.fundedAddress) }, 'latest'])),
    methodWorkload('eth_getTransactionReceipt', body('eth_getTransactionReceipt', [chain.minedTransactions[0]])),
    methodWorkload('eth_getBlockByNumber', body('eth_getBlockByNumber', ['latest', false]))
  ]
}

/**
 * Per simulated user, what a wallet polls: eth_blockNumber, then its
 * balance, nonce, the gas price, a token balanceOf and the receipt of a
 * recent transaction; 3 % of the calls send a transaction. The list is
 * cycled by every connection in turn; each side and round gets sends of its
 * own, which are real the first time round and refused (already known, or
 * nonce too low) when sent again, alike on both sides.
 */
export function walletMix (chain: WorkloadChain): RpcWorkload {
  const sender = new Wallet(chain.senderKey)
  let nonce: number | undefined
  const reads = chain.users.flatMap((user, i) => [
    body('eth_blockNumber', []),
    body('eth_getBalance', [user, 'latest']),
    body('eth_getTransactionCount', [user, 'latest']),
    body('eth_gasPrice', []),
    body('eth_call', [{ to: chain.token, data: balanceOf(user) }, 'latest']),
    body('eth_getTransactionReceipt', [chain.minedTransactions[i % chain.minedTransactions.length]])
  ])
  return {
    name: 'wallet mix',
    target: TARGET_MIX_RATIO,
    async job (url) {
      nonce ??= Number(await rpcCall(chain.gethUrl, 'eth_getTransactionCount', [sender.address, 'pending']))
      const sends: string[] = []
      for (let i = 0; i < SENDS_PER_LIST; i++) {
        const raw = await signTransfer(sender, chain.users[i % chain.users.length]!, nonce++)
        sends.push(body('eth_sendRawTransaction', [raw]))
      }
      const every = Math.floor(reads.length / SENDS_PER_LIST)
      const bodies = reads.flatMap((read, i) => i % every === every - 1 && sends.length > 0 ? [read, sends.shift()!] : [read])
      return { url, bodies, expect: 'json-rpc-answer', connections: CONNECTIONS, sampleEvery: SAMPLE_EVERY }
    }
  }
}

/** eth_calls that never repeat (balanceOf a new address each time): nothing for a cache to reuse. */
export function coldCalls (chain: WorkloadChain): RpcWorkload {
  const template = body('eth_call', [{ to: chain.token, data: BALANCE_OF + '{{n}}' }, 'latest'])
  let runs = 0
  return {
    name: 'cold eth_call',
    target: TARGET_COLD_RATIO,
    // Each side and round counts on from its own start (and each run of it from its own: scripts/bench/rpc.ts).
    job: async (url) => ({ url, countedBody: { template, firstN: ++runs * 2 ** 44 }, connections: CONNECTIONS, sampleEvery: SAMPLE_EVERY })
  }
}

/** A transfer of 1 wei, signed here: sends under load cost the load, not a signer. */
export async function signTransfer (sender: Wallet, to: string, nonce: number): Promise<string> {
  const fees = { maxFeePerGas: MAX_FEE_PER_GAS_WEI, maxPriorityFeePerGas: PRIORITY_FEE_PER_GAS_WEI }
  return await sender.signTransaction({ type: 2, chainId: CHAIN_ID, to, value: 1n, gasLimit: 21_000n, nonce, ...fees })
}

async function rpcCall (url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(method, params) })
  const answer = await response.json() as { result?: unknown, error?: { message: string } }
  if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.message}`)
  return answer.result
}
