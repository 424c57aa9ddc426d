// Three signers on three nodes peered over loopback (period 1): a gateway and
// two instances that joined it, voted in with ops signers. Stopping one keeps
// blocks coming at about the period, it catches up when it returns, and the
// gateway's index (which follows the reorgs out-of-turn blocks cause) agrees
// with the node block by block afterwards (verify-index's check). A reorg is
// made to happen: the other two reach the gateway's Geth through a TCP proxy
// the test cuts, the isolated signer seals a block of its own, and once the
// proxy is back its branch loses to the others' longer one.
// Then B and C become whole instances (a gateway process each on the node's
// data directory, indexing into a database of its own) and C's machine is
// lost: its gateway's process group and its Geth killed -9. A and B keep
// sealing and serving; C, started again on its data directory and database,
// rejoins, seals, and its indexer resumes where it was; every index agrees
// with its node and holds each block once.
// Minutes of real time (period-1 blocks waited for, two gateways started), so
// it is not among the suite's *.test.ts files: `npm run proof:signers` runs it
// (docs/network.md).
import t, { type Test } from 'tap'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { JsonRpcProvider, Wallet } from 'ethers'
import knex, { type Knex } from 'knex'
import pino from 'pino'
import { build } from '../helper.ts'
import { findFreePort } from '../../core/net/free-port.ts'
import { CHAIN_ID, loadConfig } from '../../core/config.ts'
import { readEndpoints } from '../../core/endpoints.ts'
import { createRpcClient, type RpcClient } from '../../core/rpc/client.ts'
import { createGethNode, type GethNode } from '../../geth/node.ts'
import { enodeUrl } from '../../geth/p2p.ts'
import { verifyIndex } from '../../core/indexer/check-index.ts'
import { runSigners } from '../../scripts/ops/signers.ts'
import { waitForReceipt } from '../support/chain.ts'
import { createTestDatabase } from '../support/database.ts'
import { killLeftovers, runOps, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.ts'
import { waitForIndexed, waitForIndexedOn } from '../support/indexer.ts'
import { hashAt, head, until } from '../support/node-wait.ts'
import { startTcpProxy } from '../support/tcp-proxy.ts'

const PERIOD_S = 1
const DOWN_MS = 6_000
const PARTITION_MS = 3_000
/** Two gateways starting side by side on a loaded machine: a ceiling, not a target. */
const INSTANCE_START_MS = 300_000
/** An index built from block 0 by a gateway that just started, on a loaded machine. */
const INDEX_WAIT_MS = 120_000

const signersOf = async (rpc: RpcClient): Promise<string[]> => await rpc.call<string[]>('clique_getSigners')

const first = await build(t, { CLIQUE_PERIOD: String(PERIOD_S), P2P_PORT: String(await findFreePort()) })
const firstRpc = first.app.geth.rpc
let reorgs = 0
const unsubscribe = first.app.indexer.events.subscribe((event) => { if (event.type === 'reorg') reorgs++ })
t.teardown(unsubscribe)
const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'warn' })

/** A node on its own p2p port that joins the first (JOIN_URL) or, joined before, restarts from DATA_DIR/join.json. */
async function startNode (dataDir: string, p2pPort: number, peers: string[], joinUrl?: string): Promise<GethNode> {
  const env = { ...process.env, DATA_DIR: dataDir, P2P_PORT: String(p2pPort), ...(joinUrl !== undefined ? { JOIN_URL: joinUrl } : {}), ...(peers.length > 0 ? { P2P_PEERS: peers.join(',') } : {}), LOG_LEVEL: 'warn' }
  const node = await createGethNode({ config: loadConfig(env), log })
  await node.start()
  return node
}

/** The first's Geth as the joined nodes dial it from now on: through the test's proxy. */
async function dialFirstThrough (dataDir: string, port: number): Promise<void> {
  const file = join(dataDir, 'join.json')
  const saved = JSON.parse(await readFile(file, 'utf8')) as { enodes: string[] }
  saved.enodes = [enodeUrl(first.app.geth.published!.p2p!.nodeId, '127.0.0.1', port)]
  await writeFile(file, JSON.stringify(saved))
}

/** Whether a node has the first's head block: synced and on its branch. */
async function onFirstsChain (rpc: RpcClient): Promise<boolean> {
  const n = await head(firstRpc)
  return await head(rpc) >= n && await hashAt(rpc, n) === await hashAt(firstRpc, n)
}

async function vote (rpc: RpcClient, address: string): Promise<void> {
  const config = loadConfig({ ...process.env, DATA_DIR: first.config.dataDir, GETH_RPC_URL: rpc.url })
  await runSigners(config, { name: 'signers', action: 'propose', address }, () => {})
}

// B's and C's data directories, kept for the second test: their nodes become whole instances there.
const dirs = await Promise.all([mkdtemp(join(tmpdir(), 'tg-signer-b-')), mkdtemp(join(tmpdir(), 'tg-signer-c-'))])
t.teardown(async () => { for (const dir of dirs) await rm(dir, { recursive: true, force: true }) })
const [portB, portC] = [await findFreePort(), await findFreePort()]
let enodeB = ''
let signerC = ''

t.test('three signers: one stopped, the others keep sealing; it catches up; the index agrees with the node', async (t) => {
  let b = await startNode(dirs[0]!, portB, [], first.url)
  enodeB = enodeUrl(b.published!.p2p!.nodeId, '127.0.0.1', portB)
  let c = await startNode(dirs[1]!, portC, [enodeB], first.url)
  signerC = c.keys!.signer
  t.teardown(async () => { await c.stop(); await b.stop() })

  await vote(firstRpc, b.keys!.signer)
  await until('B voted in', async () => (await signersOf(firstRpc)).length === 2)
  // Two signers: C needs both votes, B's cast in a block B seals.
  await vote(firstRpc, c.keys!.signer)
  await vote(b.rpc, c.keys!.signer)
  await until('C voted in', async () => (await signersOf(firstRpc)).length === 3)

  // From here B and C reach the first only through a proxy the test can cut.
  const proxy = await startTcpProxy(t, { host: '127.0.0.1', port: first.app.geth.published!.p2p!.port })
  for (const dir of dirs) await dialFirstThrough(dir, proxy.port)
  await b.stop()
  await c.stop()
  b = await startNode(dirs[0]!, portB, [])
  c = await startNode(dirs[1]!, portC, [enodeB])
  await until('all three sealing', async () => await c.rpc.call('eth_mining') === true && await b.rpc.call('eth_mining') === true, 15_000)
  await until('the first peered with both', async () => Number(await firstRpc.call<string>('net_peerCount')) === 2, 30_000)
  await until('all three on one chain', async () => await onFirstsChain(b.rpc) && await onFirstsChain(c.rpc))

  await b.stop()
  const [from, startedAt] = [await head(firstRpc), Date.now()]
  await sleep(DOWN_MS)
  const sealed = await head(firstRpc) - from
  const perBlockMs = (Date.now() - startedAt) / Math.max(sealed, 1)
  t.comment(`B down ${DOWN_MS} ms: ${sealed} blocks, one every ${Math.round(perBlockMs)} ms (period ${PERIOD_S} s)`)
  // Out-of-turn blocks wait up to half a second more per missing signer: about the period, not stalled.
  t.ok(perBlockMs < PERIOD_S * 1000 * 2, 'blocks keep coming at about the period')
  t.ok(await head(c.rpc) >= from + sealed - 1, 'C follows')

  b = await startNode(dirs[0]!, portB, [])
  await until('the first peered with both', async () => Number(await firstRpc.call<string>('net_peerCount')) === 2, 30_000)
  const target = await head(firstRpc)
  await until('B caught up', async () => await head(b.rpc) >= target)
  t.equal(await hashAt(b.rpc, target), await hashAt(firstRpc, target), 'B is on the same chain')
  await until('B sealing again', async () => {
    const n = await head(b.rpc)
    const signer = await b.rpc.call<string>('clique_getSigner', ['0x' + n.toString(16)])
    return signer.toLowerCase() === b.keys!.signer.toLowerCase()
  })

  // The first cut off: it may seal one block alone (clique lets a signer seal
  // one block in two of three); B and C go on. Tried until it did.
  for (let attempt = 0; attempt < 3; attempt++) {
    if (reorgs > 0) break
    await waitForIndexed(first.app)
    const before = await head(firstRpc)
    await proxy.stop()
    await sleep(PARTITION_MS)
    const alone = await head(firstRpc) > before
    // The lone block in the index before the others' branch replaces it: a
    // loaded machine's indexer may not have read it yet, and would then see no reorg.
    if (alone) await waitForIndexed(first.app).catch(() => {})
    const othersHead = await head(c.rpc)
    await proxy.start()
    // A restarted node dials its static peers at once (Geth waits 35 s before redialling one it dialled).
    await c.stop()
    c = await startNode(dirs[1]!, portC, [enodeB])
    await until('the first peered with both', async () => Number(await firstRpc.call<string>('net_peerCount')) === 2, 30_000)
    await until('the first back on the others\' chain', async () => await head(firstRpc) >= othersHead && await hashAt(firstRpc, othersHead) === await hashAt(c.rpc, othersHead))
    // A block sealed just before the cut reaches the others: no fork then, and another try.
    if (alone) await until('the indexer followed the reorg', async () => reorgs > 0, 15_000).catch(() => {})
  }
  t.ok(reorgs > 0, `${reorgs} reorgs followed by the indexer`)

  const indexed = await waitForIndexed(first.app)
  const report = await verifyIndex({ db: first.app.db.knex, rpc: firstRpc, from: 0, to: indexed })
  t.same(report.mismatches, [], `verify-index: blocks 0..${indexed} agree with the node`)
})

/** B or C as a whole instance: a gateway process on the node's data directory, indexing into a database of its own. */
type Instance = { name: string, env: Record<string, string>, gateway: GatewayProcess, rpc: RpcClient, db: Knex }

async function startInstance (t: Test, name: string, env: Record<string, string>, db: Knex): Promise<Instance> {
  const gateway = await startGatewayProcess(t, env, { servingTimeoutMs: INSTANCE_START_MS, processGroup: true })
  const endpoints = await readEndpoints(env.DATA_DIR!)
  const rpc = createRpcClient({ url: endpoints!.geth_rpc_url, timeoutMs: 10_000 })
  t.teardown(async () => await rpc.close())
  return { name, env, gateway, rpc, db }
}

/** A machine lost: the gateway's process group and its Geth (detached, a group of its own) killed -9 at once. */
async function loseMachine ({ gateway }: Instance): Promise<void> {
  const gethPid = Number(await readFile(join(gateway.dataDir, 'geth.pid'), 'utf8'))
  process.kill(-gateway.pid, 'SIGKILL')
  process.kill(-gethPid, 'SIGKILL')
  await gateway.exited
  // Returns once that Geth is gone (it only finds it if it is still dying).
  await killLeftovers(gateway.dataDir)
}

const indexedTo = async (db: Knex): Promise<number> => Number((await db('blocks').max('number as n').first())?.n ?? -1)

/**
 * verify-index's check over the whole index (each block's transactions and
 * logs as the node has them), and as many block rows as blocks 0..head (the
 * number is the key): nothing lost, nothing twice.
 */
async function checkIndex (t: Test, name: string, source: { rpc: RpcClient, db: Knex }): Promise<void> {
  const indexed = await waitForIndexedOn(source, INDEX_WAIT_MS)
  const report = await verifyIndex({ db: source.db, rpc: source.rpc, from: 0, to: indexed })
  t.same(report.mismatches, [], `${name}: verify-index: blocks 0..${indexed} agree with its node`)
  const rows = await source.db('blocks').where('number', '<=', indexed).count({ n: '*' }).first()
  t.equal(Number(rows!.n), indexed + 1, `${name}: ${indexed + 1} blocks indexed, one row each`)
}

t.test('a whole instance killed -9: the other two seal and serve; restarted on its data directory it rejoins and its index resumes', async (t) => {
  // The first test's proxy is gone: B and C dial the first's Geth directly again.
  for (const dir of dirs) await dialFirstThrough(dir, first.app.geth.published!.p2p!.port)
  const databases = await Promise.all([createTestDatabase(t), createTestDatabase(t)])
  const dbs = databases.map((url) => knex({ client: 'pg', connection: url, pool: { min: 0, max: 2 } }))
  t.teardown(async () => { for (const db of dbs) await db.destroy() })
  const instanceEnv = (i: number, p2pPort: number, peers: string[]): Record<string, string> => ({
    DATA_DIR: dirs[i]!,
    DATABASE_URL: databases[i]!,
    P2P_PORT: String(p2pPort),
    ...(peers.length > 0 ? { P2P_PEERS: peers.join(',') } : {}),
    PORT: '0',
    RATE_LIMIT_ENABLED: 'false',
    SOLC_DOWNLOAD: 'false'
  })
  const startedAt = Date.now()
  const [b, firstC] = await Promise.all([
    startInstance(t, 'B', instanceEnv(0, portB, []), dbs[0]!),
    startInstance(t, 'C', instanceEnv(1, portC, [enodeB]), dbs[1]!)
  ])
  let c = firstC
  t.comment(`B and C started as gateways in ${Date.now() - startedAt} ms`)
  await until('B and C sealing', async () => await b.rpc.call('eth_mining') === true && await c.rpc.call('eth_mining') === true)
  await until('the first peered with both', async () => Number(await firstRpc.call<string>('net_peerCount')) === 2, 30_000)
  await until('all three on one chain', async () => await onFirstsChain(b.rpc) && await onFirstsChain(c.rpc))
  await Promise.all([b, c].map(async (instance) => await waitForIndexedOn(instance, INDEX_WAIT_MS)))

  const [from, killedAt] = [await head(firstRpc), Date.now()]
  await loseMachine(c)
  const keptByC = await indexedTo(c.db)
  t.comment(`C lost at block ${from} (its index at ${keptByC}) in ${Date.now() - killedAt} ms`)

  // Down: A and B seal at about the period and serve, a transfer among what they serve.
  const gateways = [{ name: 'A', url: first.url }, { name: 'B', url: b.gateway.url }]
  const providers = gateways.map(({ url }) => new JsonRpcProvider(`${url}/rpc`, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1 }))
  t.teardown(() => { for (const provider of providers) provider.destroy() })
  const transfer = await first.chain.account.connect(providers[0]!).sendTransaction({ to: Wallet.createRandom().address, value: 1n })
  const receipt = await waitForReceipt(providers[1]!, transfer.hash)
  await sleep(Math.max(0, DOWN_MS - (Date.now() - killedAt)))
  const sealed = await head(firstRpc) - from
  const perBlockMs = (Date.now() - killedAt) / Math.max(sealed, 1)
  t.comment(`C down ${Date.now() - killedAt} ms: ${sealed} blocks, one every ${Math.round(perBlockMs)} ms (period ${PERIOD_S} s)`)
  t.ok(perBlockMs < PERIOD_S * 1000 * 2, 'blocks keep coming at about the period')
  for (const [i, { name }] of gateways.entries()) {
    t.ok(await providers[i]!.getBlockNumber() >= from + sealed - 1, `${name}'s gateway serves the head`)
    t.equal((await providers[i]!.getTransactionReceipt(transfer.hash))?.blockHash, receipt.blockHash, `${name}'s gateway serves the transfer sealed while C was down`)
  }
  t.equal(await indexedTo(c.db), keptByC, 'C\'s index kept what it had')

  // Back on its own data directory and database: it rejoins, seals, and its indexer resumes.
  const restartedAt = Date.now()
  c = await startInstance(t, 'C', c.env, c.db)
  t.comment(`C serving again ${Date.now() - restartedAt} ms after its restart`)
  const target = await head(firstRpc)
  await until('C caught up', async () => await head(c.rpc) >= target)
  t.comment(`C at the head (${target}) ${Date.now() - restartedAt} ms after its restart`)
  t.equal(await hashAt(c.rpc, target), await hashAt(firstRpc, target), 'C is on the same chain')
  await until('C sealing again', async () => {
    const n = await head(c.rpc)
    const signer = await c.rpc.call<string>('clique_getSigner', ['0x' + n.toString(16)])
    return signer.toLowerCase() === signerC.toLowerCase()
  })
  const resumed = await waitForIndexedOn(c, INDEX_WAIT_MS)
  t.ok(resumed > keptByC, `C's indexer resumed: ${keptByC} at the loss, ${resumed} now`)
  const served = await fetch(`${c.gateway.url}/api/v2/transactions/${transfer.hash}`)
  t.equal(served.status, 200, 'C serves the transfer sealed while it was down')

  await checkIndex(t, 'A', { rpc: firstRpc, db: first.app.db.knex })
  for (const instance of [b, c]) await checkIndex(t, instance.name, instance)
  // What C's operator runs, through its endpoints.json.
  const [status, verify] = await Promise.all([runOps(['status', '--json'], c.env), runOps(['verify-index'], c.env)])
  t.match(JSON.parse(status.stdout), { signer: signerC, authorized_signer: true, signers: 3 }, 'C: ops status: an authorized signer, one of three')
  t.equal(verify.exitCode, 0, verify.stdout + verify.stderr)
  t.match(verify.stdout, /no mismatches/, 'C: ops verify-index')
})
