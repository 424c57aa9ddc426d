import fp from 'fastify-plugin'
import type { App } from '../app.ts'
import { formatEther } from 'ethers'
import type { Config } from '../../core/config.ts'
import { createFaucet, type Faucet } from '../../core/faucet/index.ts'
import { clientBucket } from '../../core/net/client-bucket.ts'
import { FaucetCooldownError, FaucetDisabledError } from '../../core/errors.ts'
import { cachedFor } from '../../core/metrics/cached.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Undefined when the faucet is off. */
    faucet: Faucet | undefined
  }
}

export type FaucetPluginOptions = Config['faucet'] & { chainId: number }

const FAUCET_PATH = '/api/v2/faucet'
/** /metrics asks the node for the balance at most this often, however many scrapers. */
const BALANCE_CACHE_MS = 5000
const wei = { type: 'string', pattern: '^\\d+$', description: 'wei, as a decimal string' } as const
const errorBody = { type: 'object', properties: { statusCode: { type: 'integer' }, code: { type: 'string' }, error: { type: 'string' }, message: { type: 'string' } } } as const

const infoSchema = {
  tags: ['faucet'],
  summary: 'What the faucet hands out, how often, and what it has left',
  response: {
    200: {
      type: 'object',
      required: ['address', 'amount', 'cooldown_s', 'balance'],
      properties: { address: { type: 'string' }, amount: wei, amount_coins: { type: 'string' }, cooldown_s: { type: 'integer' }, balance: wei },
    },
    404: errorBody
  }
} as const

const dripSchema = {
  tags: ['faucet'],
  summary: 'Send test coins to an address (one drip per address and per client IP every cooldown)',
  body: { type: 'object', required: ['address'], additionalProperties: false, properties: { address: { type: 'string', maxLength: 200 } } },
  response: {
    200: {
      type: 'object',
      properties: { transaction_hash: { type: 'string' }, block_number: { type: 'integer' }, to: { type: 'string' }, amount: wei }
    },
    '4xx': errorBody,
    503: errorBody
  }
} as const

/**
 * The public faucet at /api/v2/faucet, sending from the faucet account the
 * gateway's own Geth was given in the genesis. Off (404 GW_ERR_FAUCET_DISABLED)
 * when FAUCET_ENABLED is false or the node is external (no faucet key here).
 */
async function faucetPlugin (app: App, options: FaucetPluginOptions): Promise<void> {
  const wallet = app.geth.keys?.faucet
  const faucet = options.enabled && wallet !== undefined
    ? createFaucet({ db: app.db.knex, rpc: app.geth.rpc, wallet, chainId: options.chainId, amountWei: options.amountWei, cooldownS: options.cooldownS, log: app.log.child({ name: 'faucet' }) })
    : undefined
  if (options.enabled && wallet === undefined) app.log.warn('FAUCET_ENABLED but the node is external (GETH_RPC_URL): there is no faucet key; the faucet is off')
  app.decorate('faucet', faucet)
  if (faucet !== undefined) {
    const balance = async (): Promise<{ address: string, wei: bigint } | undefined> => await faucet.info().then((info) => ({ address: info.address, wei: info.balanceWei }), () => undefined)
    app.metrics.setSources({ faucetBalance: cachedFor(BALANCE_CACHE_MS, balance) })
  }
  const reason = options.enabled ? 'the node is external (GETH_RPC_URL), so this instance holds no faucet key' : 'FAUCET_ENABLED is false'
  const need = (): Faucet => {
    if (faucet === undefined) throw new FaucetDisabledError(reason)
    return faucet
  }

  app.get(FAUCET_PATH, { schema: infoSchema }, async () => {
    const info = await need().info()
    return { address: info.address, amount: info.amountWei.toString(), amount_coins: formatEther(info.amountWei), cooldown_s: info.cooldownS, balance: info.balanceWei.toString() }
  })

  app.post(FAUCET_PATH, { schema: dripSchema }, async (request, reply) => {
    const count = (outcome: string): void => { app.metrics.faucetDrips.inc({ outcome }) }
    let result
    try {
      result = await need().drip({ address: request.body.address, client: clientBucket(request.ip) })
    } catch (err) {
      count((err as { statusCode?: number }).statusCode === 503 ? 'failed' : 'refused')
      throw err
    }
    if (result.status === 'cooldown') {
      count('cooldown')
      reply.header('retry-after', String(result.retryAfterS))
      throw new FaucetCooldownError(result.reason === 'address' ? 'address' : 'client IP', result.nextAt.toISOString())
    }
    count('sent')
    return { transaction_hash: result.transactionHash, block_number: result.blockNumber, to: result.to, amount: result.amountWei.toString() }
  })
}

export default fp(faucetPlugin, { name: 'faucet', fastify: '5.x', dependencies: ['db', 'geth', 'metrics'] })
