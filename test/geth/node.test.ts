// The node on a real Geth: genesis, restart, crash recovery, external mode.
import t from 'tap'
import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { JsonRpcProvider, Wallet } from 'ethers'
import pino from 'pino'
import { loadConfig } from '../../core/config.ts'
import { createGethNode, type GethNode } from '../../geth/node.ts'
import { SEALER_WATCHDOG_INTERVAL_MS, startSealerWatchdog } from '../../geth/sealer-watchdog.ts'
import { RESTART_MAX_DELAY_MS } from '../../core/restart-backoff.ts'
import { createTestChainFiles, waitForReceipt } from '../support/chain.ts'
import { restartSealing } from '../support/blocks.ts'
import { createFakeClock } from '../support/fake-clock.ts'

/** How long miner_stop may take to show in eth_mining. */
const MINER_STOP_WAIT_MS = 5000
const chain = await createTestChainFiles(t)
const config = loadConfig({ ...process.env, ...chain.env })
// The watchdog and the restart backoff run in fake time: the tests move it on.
const clock = createFakeClock()
// The watchdog's restarts, counted from its warnings at fake times; every line still goes to stdout.
const restarts: number[] = []
const log = pino({ level: config.logLevel }, {
  write (line: string) {
    if (line.includes('clique sealer stalled')) restarts.push(clock.now())
    process.stdout.write(line)
  }
})

async function startNode (): Promise<GethNode> {
  const node = await createGethNode({ config, log, clock })
  await node.start()
  return node
}

/** A transfer from the funded account, not waited for. */
async function send (node: GethNode): Promise<{ hash: string, provider: JsonRpcProvider }> {
  const provider = new JsonRpcProvider(node.rpc.url, 793788, { staticNetwork: true, cacheTimeout: -1 })
  const wallet = new Wallet(chain.account.privateKey, provider)
  return { hash: (await wallet.sendTransaction({ to: Wallet.createRandom().address, value: 1n })).hash, provider }
}

async function sendTransfer (node: GethNode): Promise<{ blockNumber: number, blockHash: string }> {
  const { hash, provider } = await send(node)
  try {
    // A stalled sealer is the watchdog's to restart, as in real time: its looks come when no receipt does.
    const receipt = await waitForReceipt(provider, hash, undefined, async () => await clock.advance(SEALER_WATCHDOG_INTERVAL_MS))
    return { blockNumber: receipt!.blockNumber, blockHash: receipt!.blockHash }
  } finally {
    provider.destroy()
  }
}

type Block = { hash: string, extraData: string, miner: string }
const blockAt = async (node: GethNode, n: number) => await node.rpc.call<Block>('eth_getBlockByNumber', ['0x' + n.toString(16), false])

let node = await startNode()
t.teardown(async () => await node.stop())

t.test('the genesis is chain 793788 with the signer in extraData', async (t) => {
  t.equal(await node.rpc.call('eth_chainId'), '0xc1cbc')
  t.equal(await node.rpc.call('net_version'), '793788')
  const genesis = await blockAt(node, 0)
  const signer = node.keys!.signer.toLowerCase().slice(2)
  t.equal(genesis.extraData.slice(2 + 64, 2 + 64 + 40), signer, 'extraData = vanity + signer + seal')
  t.equal(genesis.extraData.length, 2 + 2 * (32 + 20 + 65))
  const written = JSON.parse(await readFile(join(config.dataDir, 'genesis.json'), 'utf8'))
  t.equal(written.config.chainId, 793788)
  t.ok(written.alloc[chain.account.address], 'GENESIS_ALLOC is merged')
  t.ok(written.alloc[node.keys!.faucet.address], 'the faucet is funded')
  t.equal(BigInt(await node.rpc.call<string>('eth_getBalance', [node.keys!.faucet.address, 'latest'])), 10n ** 27n)
})

t.test('the signer key and password file are private', async (t) => {
  const { stat } = await import('node:fs/promises')
  t.equal((await stat(join(config.dataDir, 'signer.password'))).mode & 0o777, 0o600)
  t.equal((await stat(join(config.dataDir, 'faucet.key'))).mode & 0o777, 0o600)
  const keystore = await readdir(join(config.dataDir, 'keystore'))
  t.equal(keystore.length, 1)
  t.equal((await stat(join(config.dataDir, 'keystore', keystore[0]!))).mode & 0o777, 0o600)
})

t.test('a clique block is sealed by our signer', async (t) => {
  const { blockHash } = await sendTransfer(node)
  t.equal((await node.rpc.call<string>('clique_getSigner', [blockHash])).toLowerCase(), node.keys!.signer.toLowerCase())
})

t.test('the sealer can be restarted through the private miner API and seals again', async (t) => {
  // The test helpers' remedy for a period-0 sealer that stalls with transactions pending.
  await restartSealing(node.rpc)
  t.equal(await node.rpc.call<boolean>('eth_mining', []), true, 'mining again')
  const { blockHash } = await sendTransfer(node)
  t.equal((await node.rpc.call<string>('clique_getSigner', [blockHash])).toLowerCase(), node.keys!.signer.toLowerCase())
})

t.test('a period-0 sealer stopped with a transaction pending is restarted by the watchdog, which seals it', async (t) => {
  // What go-ethereum#21189 leaves behind, made on purpose: a sealer that does not seal while a transaction waits.
  await node.rpc.call('miner_stop', [])
  // miner_stop asks the miner's loop to stop: eth_mining can say true for a moment after it answers.
  const stoppedBy = Date.now() + MINER_STOP_WAIT_MS
  while (await node.rpc.call<boolean>('eth_mining', []) && Date.now() < stoppedBy) await sleep(20)
  t.equal(await node.rpc.call<boolean>('eth_mining', []), false)
  const started = clock.now()
  const before = restarts.length
  const { hash, provider } = await send(node)
  t.teardown(() => provider.destroy())
  // The watchdog's looks, one a fake interval, until it restarts the sealer.
  while (restarts.length === before && clock.now() - started < 15_000) await clock.advance(SEALER_WATCHDOG_INTERVAL_MS)
  const { blockNumber } = await waitForReceipt(provider, hash)
  t.ok(clock.now() - started < 15_000, `sealed ${clock.now() - started} ms after sending (the watchdog looks every 2 s)`)
  t.ok(blockNumber > 0)
  t.equal(await node.rpc.call<boolean>('eth_mining', []), true, 'mining again')
})

t.test('the watchdog leaves a node whose key is not a signer alone (a joined instance before it is voted in)', async (t) => {
  // A watchdog of our own on its own fake clock: the node's watchdog does not look meanwhile.
  const ownClock = createFakeClock()
  const warnings: string[] = []
  const ownLog = pino({ level: 'warn' }, { write: (line: string) => { warnings.push(line) } })
  let signer = false
  const watchdog = startSealerWatchdog({ rpc: node.rpc, log: ownLog, clock: ownClock, isSigner: () => signer })
  t.teardown(() => watchdog.stop())
  await node.rpc.call('miner_stop', [])
  const stoppedBy = Date.now() + MINER_STOP_WAIT_MS
  while (await node.rpc.call<boolean>('eth_mining', []) && Date.now() < stoppedBy) await sleep(20)
  const { hash, provider } = await send(node)
  t.teardown(() => provider.destroy())
  for (let i = 0; i < 5; i++) await ownClock.advance(SEALER_WATCHDOG_INTERVAL_MS)
  t.same(warnings, [], 'no restart while not a signer')
  t.equal(await node.rpc.call<boolean>('eth_mining', []), false)
  signer = true
  for (let i = 0; i < 3 && warnings.length === 0; i++) await ownClock.advance(SEALER_WATCHDOG_INTERVAL_MS)
  t.equal(warnings.length, 1, 'a signer\'s stalled sealer is restarted')
  t.ok((await waitForReceipt(provider, hash)).blockNumber > 0)
})

t.test('a pending transaction no block can take does not make the watchdog restart the sealer at every look', async (t) => {
  const provider = new JsonRpcProvider(node.rpc.url, 793788, { staticNetwork: true, cacheTimeout: -1 })
  t.teardown(() => provider.destroy())
  const funder = new Wallet(chain.account.privateKey, provider)
  const stuck = Wallet.createRandom().connect(provider)
  await waitForReceipt(provider, (await funder.sendTransaction({ to: stuck.address, value: 10n ** 18n })).hash)
  // A tip at the pool's floor (1 gwei: Geth runs with --txpool.nolocals) whose fee cap leaves less than the floor over the
  // base fee: the pool keeps it pending, no block takes it.
  await stuck.sendTransaction({ to: funder.address, value: 1n, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n, gasLimit: 21000n })
  const from = clock.now()
  await clock.advance(15_000)
  const seen = restarts.filter((at) => at >= from)
  // Looks every 2 s: restarts at about 2 to 4 s, then 4 s and 8 s after that; without the backoff, one a look (7).
  t.ok(seen.length >= 1 && seen.length <= 3, `${seen.length} restarts in 15 s`)
  // Other transactions are still sealed.
  const { blockNumber } = await sendTransfer(node)
  t.ok(blockNumber > 0)
})

t.test('a restart keeps the chain, the keys and the genesis', async (t) => {
  const { blockNumber, blockHash } = await sendTransfer(node)
  const genesisText = await readFile(join(config.dataDir, 'genesis.json'), 'utf8')
  const signer = node.keys!.signer
  const faucet = node.keys!.faucet.address
  await node.stop()
  node = await startNode()
  t.equal((await blockAt(node, blockNumber)).hash, blockHash, 'the block survives the restart')
  t.equal(node.keys!.signer, signer)
  t.equal(node.keys!.faucet.address, faucet)
  t.equal(await readFile(join(config.dataDir, 'genesis.json'), 'utf8'), genesisText, 'genesis.json is not rewritten')
  t.ok((await sendTransfer(node)).blockNumber > blockNumber, 'the restarted node still seals')
})

t.test('kill -9 of Geth is noticed and Geth serves again within 10 s with the chain intact', async (t) => {
  const { blockNumber, blockHash } = await sendTransfer(node)
  const supervisor = node.supervisor!
  const restartsBefore = supervisor.restarts
  const killedAt = Date.now()
  const restarted = once(supervisor, 'restarted')
  process.kill(supervisor.pid!, 'SIGKILL')
  await once(supervisor, 'exit')
  // The exit scheduled the restart on the fake clock: the backoff passes at once.
  await clock.advance(RESTART_MAX_DELAY_MS)
  await restarted
  const backAfterMs = Date.now() - killedAt
  t.ok(backAfterMs < 10_000, `back after ${backAfterMs} ms`)
  t.equal(supervisor.restarts, restartsBefore + 1)
  t.equal((await blockAt(node, blockNumber)).hash, blockHash, 'archive mode keeps the sealed chain')
  t.ok((await sendTransfer(node)).blockNumber > blockNumber, 'sealing resumes')
})

t.test('GETH_RPC_URL uses a running node without a supervisor', async (t) => {
  const external = await createGethNode({ config: loadConfig({ ...process.env, ...chain.env, GETH_RPC_URL: node.rpc.url }), log })
  t.teardown(async () => await external.stop())
  t.equal(external.supervisor, undefined)
  await external.start()
  t.equal(await external.rpc.call('eth_chainId'), '0xc1cbc')
})

t.test('stop() ends the Geth process', async (t) => {
  const pid = node.supervisor!.pid!
  await node.stop()
  t.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'the process is gone')
  node = await startNode()
})
