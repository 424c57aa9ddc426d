// eth_sendTransaction is never forwarded: Geth's unlocked signer would sign
// anything. The gateway signs itself, only for keys the operator gave it.
import { readFile } from 'node:fs/promises'
import { Transaction, Wallet, type TransactionRequest } from 'ethers'
import { DevAccountsInvalidError } from '../errors.ts'
import { RpcUnavailableError, type RpcClient } from '../rpc/client.ts'
import { JsonRpcError } from './errors.ts'
import { GatewayProvider, unavailableCause } from './gateway-provider.ts'

export type DevAccounts = {
  /** Checksummed addresses the gateway can sign for. */
  readonly addresses: string[]
  sendTransaction (tx: Record<string, string>): Promise<string>
  close (): void
}

export type DevAccountsOptions = {
  file: string | undefined
  rpc: RpcClient
  chainId: number
  /** RPC_TIMEOUT_MS: how long a send may take from its arrival, its wait for its turn included. */
  timeoutMs: number
}

export async function loadDevAccounts ({ file, rpc, chainId, timeoutMs }: DevAccountsOptions): Promise<DevAccounts> {
  const keys = file === undefined ? [] : await readKeys(file)
  const provider = new GatewayProvider(rpc, chainId)
  const wallets = new Map(keys.map((key) => {
    const wallet = new Wallet(key, provider)
    return [wallet.address.toLowerCase(), wallet]
  }))
  // One send at a time per account: ethers reads the pending nonce, so two
  // concurrent sends from one account would otherwise take the same nonce.
  // The queue holds each send's real end (the next waits for it, answered or
  // not); each caller waits at most until its own deadline.
  const queues = new Map<string, Promise<unknown>>()

  async function sendTransaction (tx: Record<string, string>): Promise<string> {
    const deadlineMs = Date.now() + timeoutMs
    const from = tx.from?.toLowerCase()
    const wallet = from === undefined ? undefined : wallets.get(from)
    if (wallet === undefined) throw new JsonRpcError('UNKNOWN_ACCOUNT', 'the gateway holds no key for this from address')
    const previous = queues.get(from!) ?? Promise.resolve()
    const late = (): boolean => Date.now() >= deadlineMs
    const sent = previous.catch(() => {}).then(async () => {
      // Its caller was answered already: nothing is sent for it, and the next one's turn comes at once.
      if (late()) throw timedOut(timeoutMs)
      return await signAndSend(wallet, tx, late, timeoutMs)
    })
    queues.set(from!, sent)
    // The last in the queue leaves nothing behind once done.
    const leave = (): void => { if (queues.get(from!) === sent) queues.delete(from!) }
    sent.then(leave, leave)
    return await beforeDeadline(sent, deadlineMs, timeoutMs)
  }

  return {
    addresses: [...wallets.values()].map((w) => w.address),
    sendTransaction,
    close: () => provider.destroy()
  }
}

/** What a hung node's request answers (the handler's -32603), for a send whose time ran out anywhere: in the queue or at the node. */
function timedOut (timeoutMs: number): RpcUnavailableError {
  return new RpcUnavailableError(`eth_sendTransaction got no answer from the node within RPC_TIMEOUT_MS (${timeoutMs} ms) of its arrival`)
}

async function beforeDeadline<T> (work: Promise<T>, deadlineMs: number, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(timedOut(timeoutMs)), Math.max(0, deadlineMs - Date.now()))
  })
  try {
    return await Promise.race([work, expired])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * ethers' Wallet.sendTransaction in its steps (fill in, sign, broadcast), so
 * that a send whose caller was already answered with the timeout is not
 * broadcast after all when the node wakes up.
 */
async function signAndSend (wallet: Wallet, tx: Record<string, string>, late: () => boolean, timeoutMs: number): Promise<string> {
  try {
    const populated = await wallet.populateTransaction(toTransactionRequest(tx))
    delete populated.from
    const signed = await wallet.signTransaction(Transaction.from(populated))
    if (late()) throw timedOut(timeoutMs)
    return (await wallet.provider!.broadcastTransaction(signed)).hash
  } catch (err) {
    // The node did not answer: the handler's -32603 (HTTP 503), as for any other method.
    const unavailable = unavailableCause(err)
    if (unavailable !== undefined) throw unavailable
    // ethers keeps the node's own JSON-RPC error: in info.error where it names it (insufficient funds, nonce too
    // low...), in error where it does not ("transaction underpriced" is "could not coalesce error" to ethers).
    type NodeError = { code?: number, message?: string }
    const wrapped = err as { info?: { error?: NodeError }, error?: NodeError }
    const nodeError = typeof wrapped.info?.error?.code === 'number' ? wrapped.info.error : wrapped.error
    if (typeof nodeError?.code === 'number') throw new JsonRpcError({ code: nodeError.code, message: nodeError.message ?? 'transaction rejected' })
    throw new JsonRpcError({ code: -32000, message: (err as { shortMessage?: string }).shortMessage ?? (err as Error).message })
  }
}

function toTransactionRequest (tx: Record<string, string>): TransactionRequest {
  const big = (v: string | undefined) => v === undefined ? undefined : BigInt(v)
  return {
    to: tx.to,
    value: big(tx.value),
    data: tx.data ?? tx.input,
    gasLimit: big(tx.gas),
    gasPrice: big(tx.gasPrice),
    maxFeePerGas: big(tx.maxFeePerGas),
    maxPriorityFeePerGas: big(tx.maxPriorityFeePerGas),
    nonce: tx.nonce === undefined ? undefined : Number(tx.nonce),
    type: tx.type === undefined ? undefined : Number(tx.type),
    accessList: (tx as Record<string, unknown>).accessList as TransactionRequest['accessList']
  }
}

async function readKeys (file: string): Promise<string[]> {
  let parsed: unknown
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'))
  } catch (err) {
    throw new DevAccountsInvalidError(file, (err as Error).message)
  }
  if (!Array.isArray(parsed)) throw new DevAccountsInvalidError(file, 'expected an array')
  for (const [i, key] of parsed.entries()) {
    if (typeof key !== 'string' || !/^(0x)?[0-9a-fA-F]{64}$/.test(key)) throw new DevAccountsInvalidError(file, `item ${i} is not a 32-byte hex private key`)
  }
  return parsed.map((k: string) => k.startsWith('0x') ? k : '0x' + k)
}
