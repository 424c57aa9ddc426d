// The faucet at /api/v2/faucet on a real gateway (Geth period 0, PostgreSQL):
// coins arrive, the cooldown holds per address, per client IP and /64, across
// a restart and under concurrent requests, and nonces never collide.
import t from 'tap'
import pino from 'pino'
import { Wallet } from 'ethers'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../../plugins/index.ts'
import { buildTestConfig } from '../../helper.ts'
import { LOGGER_INIT_CODE, sendRound, sign } from '../../support/blocks.ts'
import { createFaucet } from '../../../core/faucet/index.ts'

const COIN = 10n ** 18n
const { config, chain } = await buildTestConfig(t, { FAUCET_ENABLED: 'true' })

async function start (): Promise<FastifyInstance> {
  const app = await buildApp(config, { logger: pino({ level: config.logLevel }) })
  await app.ready()
  return app
}
let app = await start()
t.teardown(async () => await app.close())

let nextIp = 1
/** A client address of its own for each call unless one is given. */
const drip = async (address: string, remoteAddress = `198.51.100.${nextIp++}`) =>
  await app.inject({ method: 'POST', url: '/api/v2/faucet', payload: { address }, remoteAddress })
const balanceOf = async (address: string): Promise<bigint> => BigInt(await app.geth.rpc.call<string>('eth_getBalance', [address, 'latest']))
const fresh = (): string => Wallet.createRandom().address

t.test('GET /api/v2/faucet says the amount, the cooldown and the balance', async (t) => {
  const response = await app.inject({ method: 'GET', url: '/api/v2/faucet' })
  t.equal(response.statusCode, 200)
  const body = response.json()
  t.equal(body.address, app.geth.keys!.faucet.address)
  t.equal(body.amount, COIN.toString())
  t.equal(body.amount_coins, '1.0')
  t.equal(body.cooldown_s, 86400)
  t.equal(BigInt(body.balance), await balanceOf(body.address))
})

t.test('POST /api/v2/faucet sends one coin, mined before it answers', async (t) => {
  const to = fresh()
  const response = await drip(to)
  t.equal(response.statusCode, 200, response.body)
  const body = response.json()
  t.match(body.transaction_hash, /^0x[0-9a-f]{64}$/)
  t.equal(body.amount, COIN.toString())
  t.equal(await balanceOf(to), COIN)
  const receipt = await app.geth.rpc.call<{ blockNumber: string, from: string }>('eth_getTransactionReceipt', [body.transaction_hash])
  t.equal(Number(receipt.blockNumber), body.block_number)
  t.equal(receipt.from, app.geth.keys!.faucet.address.toLowerCase())
})

t.test('a second drip for the address, or for the client IP, is refused with 429 and Retry-After', async (t) => {
  const to = fresh()
  t.equal((await drip(to, '203.0.113.7')).statusCode, 200)
  const again = await drip(to)
  t.equal(again.statusCode, 429)
  t.equal(again.json().code, 'GW_ERR_FAUCET_COOLDOWN')
  t.match(again.json().message, /This address had a drip .* the next is allowed at \d{4}-\d\d-\d\dT/)
  const retryAfter = Number(again.headers['retry-after'])
  t.ok(retryAfter > 86300 && retryAfter <= 86400, `Retry-After ${retryAfter}`)
  const sameIp = await drip(fresh(), '203.0.113.7')
  t.equal(sameIp.statusCode, 429)
  t.match(sameIp.json().message, 'This client IP had a drip')
  t.equal(await balanceOf(to), COIN, 'one coin, not two')
})

t.test('IPv6 clients are kept per /64', async (t) => {
  t.equal((await drip(fresh(), '2001:db8:aa:bb::1')).statusCode, 200)
  t.equal((await drip(fresh(), '2001:db8:aa:bb:ffff:1:2:3')).statusCode, 429, 'same /64')
  t.equal((await drip(fresh(), '2001:db8:aa:bc::1')).statusCode, 200, 'another /64')
})

t.test('20 concurrent requests for one address send exactly one drip', async (t) => {
  const to = fresh()
  const answers = await Promise.all(Array.from({ length: 20 }, async () => await drip(to)))
  t.same(answers.map((a) => a.statusCode).sort(), [200, ...Array<number>(19).fill(429)])
  t.equal(await balanceOf(to), COIN)
})

t.test('20 concurrent requests for 20 addresses all arrive: no nonce collides', async (t) => {
  const addresses = Array.from({ length: 20 }, fresh)
  const answers = await Promise.all(addresses.map(async (a) => await drip(a)))
  t.same(answers.map((a) => a.statusCode), Array<number>(20).fill(200), answers.find((a) => a.statusCode !== 200)?.body ?? 'all 200')
  const hashes = answers.map((a) => a.json().transaction_hash as string)
  const nonces = await Promise.all(hashes.map(async (h) => Number((await app.geth.rpc.call<{ nonce: string }>('eth_getTransactionByHash', [h])).nonce)))
  t.equal(new Set(nonces).size, 20, 'twenty different nonces')
  t.same(await Promise.all(addresses.map(balanceOf)), Array<bigint>(20).fill(COIN))
})

t.test('an invalid address, a contract and bad bodies answer 400', async (t) => {
  const invalid = await drip('0x1234')
  t.equal(invalid.statusCode, 400)
  t.equal(invalid.json().code, 'GW_ERR_FAUCET_ADDRESS_INVALID')
  t.equal((await drip(app.geth.keys!.faucet.address)).json().code, 'GW_ERR_FAUCET_ADDRESS_INVALID', 'not to itself')
  t.equal((await app.inject({ method: 'POST', url: '/api/v2/faucet', payload: { to: fresh() } })).statusCode, 400)
  t.equal((await app.inject({ method: 'POST', url: '/api/v2/faucet', payload: 'nonsense', headers: { 'content-type': 'application/json' } })).statusCode, 400)
  const deployer = chain.account.connect(null)
  const raw = await sign(deployer, { data: LOGGER_INIT_CODE, gasLimit: 100_000n, nonce: 0 })
  await sendRound(app.geth.rpc, [raw])
  const receipt = await app.geth.rpc.call<{ contractAddress: string }>('eth_getTransactionReceipt', [(await import('ethers')).keccak256(raw)])
  const contract = await drip(receipt.contractAddress)
  t.equal(contract.statusCode, 400)
  t.equal(contract.json().code, 'GW_ERR_FAUCET_CONTRACT_ADDRESS')
  t.equal(await balanceOf(receipt.contractAddress), 0n)
})

t.test('an empty faucet answers 503; a drip that is not mined is not charged', async (t) => {
  const options = { db: app.db.knex, rpc: app.geth.rpc, wallet: app.geth.keys!.faucet, chainId: config.chainId, cooldownS: 86400, log: app.log }
  const huge = createFaucet({ ...options, amountWei: 10n ** 30n })
  await t.rejects(huge.drip({ address: fresh(), client: '192.0.2.1' }), { code: 'GW_ERR_FAUCET_EMPTY', statusCode: 503 })
  const impatient = createFaucet({ ...options, amountWei: COIN, receiptTimeoutMs: 300 })
  const to = fresh()
  await app.geth.rpc.call('miner_stop', [])
  try {
    await t.rejects(impatient.drip({ address: to, client: '192.0.2.2' }), { code: 'GW_ERR_FAUCET_NOT_MINED', statusCode: 503 })
  } finally {
    await app.geth.rpc.call('miner_start', [])
  }
  const again = await drip(to, '192.0.2.2')
  t.equal(again.statusCode, 200, 'neither the address nor the client was charged')
})

t.test('through HTTP, an empty faucet answers its documented 503 with its code, not a bare 500', async (t) => {
  await app.close()
  app = await buildApp({ ...config, faucet: { ...config.faucet, amountWei: 10n ** 30n } }, { logger: pino({ level: config.logLevel }) })
  try {
    const response = await drip(fresh())
    t.equal(response.statusCode, 503)
    t.same(response.json(), {
      statusCode: 503,
      code: 'GW_ERR_FAUCET_EMPTY',
      error: 'Service Unavailable',
      message: `The faucet account ${app.geth.keys!.faucet.address} has too little left for a drip; tell the operator`
    })
  } finally {
    await app.close()
    app = await start()
  }
})

t.test('the cooldown holds across a restart (it is kept in PostgreSQL)', async (t) => {
  const to = fresh()
  t.equal((await drip(to)).statusCode, 200)
  await app.close()
  app = await start()
  const again = await drip(to)
  t.equal(again.statusCode, 429)
  t.equal(again.json().code, 'GW_ERR_FAUCET_COOLDOWN')
})

t.test('FAUCET_ENABLED=false answers 404 GW_ERR_FAUCET_DISABLED', async (t) => {
  const { config: off } = await buildTestConfig(t, { FAUCET_ENABLED: 'false', DATABASE_URL: config.databaseUrl!, DATA_DIR: config.dataDir })
  await app.close()
  app = await buildApp(off, { logger: pino({ level: off.logLevel }) })
  for (const method of ['GET', 'POST'] as const) {
    const response = await app.inject({ method, url: '/api/v2/faucet', payload: method === 'POST' ? { address: fresh() } : undefined })
    t.equal(response.statusCode, 404)
    t.equal(response.json().code, 'GW_ERR_FAUCET_DISABLED')
  }
})
