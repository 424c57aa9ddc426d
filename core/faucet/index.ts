// The public faucet: test coins from the faucet account (geth/keys.ts), one
// drip per address and per client every cooldown. Sends are serialised (in
// this process by a promise chain, across instances by a PostgreSQL advisory
// lock) so no two drips take the same nonce; the cooldown is reserved in the
// same transaction that sends, and given back if the drip is not mined.
import type { Knex } from 'knex'
import { getAddress, isAddress, keccak256, type Wallet } from 'ethers'
import type { Logger } from '../logger.ts'
import type { RpcClient } from '../rpc/client.ts'
import { FaucetAddressInvalidError, FaucetContractAddressError, FaucetEmptyError, FaucetNotMinedError } from '../errors.ts'
import { waitForReceipt } from './receipt.ts'

/** pg_advisory_xact_lock key of faucet sends ('tgfaucet'); the indexer's lock has its own. */
export const FAUCET_LOCK_KEY = 0x7467666175636574n
const TRANSFER_GAS = 21_000n
const DEFAULT_RECEIPT_TIMEOUT_MS = 60_000

export type FaucetOptions = {
  db: Knex
  rpc: RpcClient
  /** The faucet account's key. */
  wallet: Wallet
  chainId: number
  amountWei: bigint
  cooldownS: number
  log: Logger
  receiptTimeoutMs?: number
}

export type FaucetInfo = { address: string, amountWei: bigint, cooldownS: number, balanceWei: bigint }

export type Drip = { transactionHash: string, blockNumber: number, amountWei: bigint, to: string }

export type DripResult =
  | ({ status: 'sent' } & Drip)
  | { status: 'cooldown', retryAfterS: number, nextAt: Date, reason: 'address' | 'client' }

export type Faucet = {
  address: string
  info (): Promise<FaucetInfo>
  /** A public drip: refused during the address's or the client's cooldown. */
  drip (request: { address: string, client: string }): Promise<DripResult>
  /** An operator's send: any amount, no cooldown, nothing kept. */
  send (request: { address: string, amountWei: bigint }): Promise<Drip>
}

export function createFaucet (o: FaucetOptions): Faucet {
  const receiptTimeoutMs = o.receiptTimeoutMs ?? DEFAULT_RECEIPT_TIMEOUT_MS
  let queue: Promise<unknown> = Promise.resolve()
  /** One send at a time in this process: the others wait here, not on a database connection each. */
  const serialised = async <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work)
    queue = run.catch(() => {})
    return await run
  }

  async function checkRecipient (address: string): Promise<string> {
    if (!isAddress(address)) throw new FaucetAddressInvalidError(JSON.stringify(String(address).slice(0, 100)))
    const to = getAddress(address)
    // Coins sent to a contract may be locked there for good, or drained by whoever wrote it.
    const code = await o.rpc.call<string>('eth_getCode', [to, 'latest'])
    if (code !== '0x') throw new FaucetContractAddressError(to)
    if (to === o.wallet.address) throw new FaucetAddressInvalidError(`${to} (the faucet's own)`)
    return to
  }

  /** Under the advisory lock in `trx`: checks the balance, signs with the next nonce and sends. */
  async function signAndSend (trx: Knex.Transaction, to: string, amountWei: bigint, beforeSend?: (hash: string) => Promise<void>): Promise<string> {
    await trx.raw('select pg_advisory_xact_lock(?)', [FAUCET_LOCK_KEY.toString()])
    const [balance, nonce, gasPrice] = await o.rpc.batch<string>([
      { method: 'eth_getBalance', params: [o.wallet.address, 'latest'] },
      { method: 'eth_getTransactionCount', params: [o.wallet.address, 'pending'] },
      { method: 'eth_gasPrice', params: [] }
    ])
    if (BigInt(balance!) < amountWei + TRANSFER_GAS * BigInt(gasPrice!)) throw new FaucetEmptyError(o.wallet.address)
    const raw = await o.wallet.signTransaction({ type: 0, to, value: amountWei, nonce: Number(nonce), gasLimit: TRANSFER_GAS, gasPrice: BigInt(gasPrice!), chainId: o.chainId })
    const hash = keccak256(raw)
    await beforeSend?.(hash)
    await o.rpc.call('eth_sendRawTransaction', [raw])
    return hash
  }

  async function mined (hash: string, to: string, amountWei: bigint): Promise<Drip> {
    const receipt = await waitForReceipt(o.rpc, hash, receiptTimeoutMs)
    if (receipt === undefined || receipt.status !== '0x1') throw new FaucetNotMinedError(hash, receipt === undefined ? `not mined within ${receiptTimeoutMs / 1000} s` : 'it failed')
    return { transactionHash: hash, blockNumber: Number(receipt.blockNumber), amountWei, to }
  }

  return {
    address: o.wallet.address,
    async info () {
      const balance = await o.rpc.call<string>('eth_getBalance', [o.wallet.address, 'latest'])
      return { address: o.wallet.address, amountWei: o.amountWei, cooldownS: o.cooldownS, balanceWei: BigInt(balance) }
    },
    async drip ({ address, client }) {
      const to = await checkRecipient(address)
      const toBytes = Buffer.from(to.slice(2), 'hex')
      const reserved = await serialised(async () => await o.db.transaction(async (trx) => {
        // Checked under the lock: of concurrent requests for one address exactly one finds no drip.
        const refusal = await readCooldown(trx, toBytes, client, o.cooldownS)
        if (refusal !== undefined) return refusal
        let id = ''
        const hash = await signAndSend(trx, to, o.amountWei, async (transactionHash) => {
          const [row] = await trx('faucet_drips').insert({ address: toBytes, client, amount: o.amountWei.toString(), transaction_hash: Buffer.from(transactionHash.slice(2), 'hex'), requested_at: trx.raw('clock_timestamp()') }, ['id'])
          id = String(row.id)
        })
        return { id, hash }
      }))
      if ('status' in reserved) return reserved
      try {
        const drip = await mined(reserved.hash, to, o.amountWei)
        await o.db('faucet_drips').where('id', reserved.id).update({ mined: true })
        o.log.info({ to, transaction_hash: drip.transactionHash, client }, 'faucet drip sent')
        return { status: 'sent', ...drip }
      } catch (err) {
        // Not charged: the requester may ask again at once.
        await o.db('faucet_drips').where('id', reserved.id).delete()
        throw err
      }
    },
    async send ({ address, amountWei }) {
      const to = await checkRecipient(address)
      const hash = await serialised(async () => await o.db.transaction(async (trx) => await signAndSend(trx, to, amountWei)))
      return await mined(hash, to, amountWei)
    }
  }
}

/** The refusal when the address or the client had a drip within the cooldown; undefined when neither had. */
async function readCooldown (trx: Knex.Transaction, address: Buffer, client: string, cooldownS: number): Promise<DripResult | undefined> {
  if (cooldownS === 0) return undefined
  const { rows } = await trx.raw(`
    select extract(epoch from max(requested_at) filter (where address = :address)) as address_last,
           extract(epoch from max(requested_at) filter (where client = :client)) as client_last,
           extract(epoch from clock_timestamp()) as now
      from faucet_drips
     where (address = :address or client = :client) and requested_at > clock_timestamp() - make_interval(secs => :cooldownS)`,
  { address, client, cooldownS })
  const row = rows[0] as { address_last: string | null, client_last: string | null, now: string }
  const addressLast = row.address_last === null ? -Infinity : Number(row.address_last)
  const clientLast = row.client_last === null ? -Infinity : Number(row.client_last)
  const last = Math.max(addressLast, clientLast)
  if (last === -Infinity) return undefined
  const nextAt = (last + cooldownS) * 1000
  return {
    status: 'cooldown',
    retryAfterS: Math.max(1, Math.ceil(nextAt / 1000 - Number(row.now))),
    nextAt: new Date(nextAt),
    reason: addressLast >= clientLast ? 'address' : 'client'
  }
}
