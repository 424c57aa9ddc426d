// Three signers on three nodes peered over loopback (period 1): a gateway and
// two instances that joined it, voted in with ops signers. Stopping one keeps
// blocks coming at about the period, it catches up when it returns, and the
// gateway's index (which follows the reorgs out-of-turn blocks cause) agrees
// with the node block by block afterwards (verify-index's check). A reorg is
// made to happen: the other two reach the gateway's Geth through a TCP proxy
// the test cuts, the isolated signer seals a block of its own, and once the
// proxy is back its branch loses to the others' longer one.
// Over a minute of real time (period-1 blocks waited for), so it is not among
// the suite's *.test.ts files: `npm run proof:signers` runs it (docs/network.md).
import t from 'tap'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pino from 'pino'
import { build } from '../helper.ts'
import { findFreePort } from '../../core/net/free-port.ts'
import { loadConfig } from '../../core/config.ts'
import type { RpcClient } from '../../core/rpc/client.ts'
import { createGethNode, type GethNode } from '../../geth/node.ts'
import { enodeUrl } from '../../geth/p2p.ts'
import { verifyIndex } from '../../core/indexer/check-index.ts'
import { runSigners } from '../../scripts/ops/signers.ts'
import { waitForIndexed } from '../support/indexer.ts'
import { hashAt, head, until } from '../support/node-wait.ts'
import { startTcpProxy } from '../support/tcp-proxy.ts'

const PERIOD_S = 1
const DOWN_MS = 6_000
const PARTITION_MS = 3_000

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

t.test('three signers: one stopped, the others keep sealing; it catches up; the index agrees with the node', async (t) => {
  const dirs = await Promise.all([mkdtemp(join(tmpdir(), 'tg-signer-b-')), mkdtemp(join(tmpdir(), 'tg-signer-c-'))])
  t.teardown(async () => { for (const dir of dirs) await rm(dir, { recursive: true, force: true }) })
  const [portB, portC] = [await findFreePort(), await findFreePort()]
  let b = await startNode(dirs[0]!, portB, [], first.url)
  const enodeB = enodeUrl(b.published!.p2p!.nodeId, '127.0.0.1', portB)
  let c = await startNode(dirs[1]!, portC, [enodeB], first.url)
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
    const othersHead = await head(c.rpc)
    await proxy.start()
    // A restarted node dials its static peers at once (Geth waits 35 s before redialling one it dialled).
    await c.stop()
    c = await startNode(dirs[1]!, portC, [enodeB])
    await until('the first peered with both', async () => Number(await firstRpc.call<string>('net_peerCount')) === 2, 30_000)
    await until('the first back on the others\' chain', async () => await head(firstRpc) >= othersHead && await hashAt(firstRpc, othersHead) === await hashAt(c.rpc, othersHead))
    if (alone) await until('the indexer followed the reorg', async () => reorgs > 0, 15_000)
  }
  t.ok(reorgs > 0, `${reorgs} reorgs followed by the indexer`)

  const indexed = await waitForIndexed(first.app)
  const report = await verifyIndex({ db: first.app.db.knex, rpc: firstRpc, from: 0, to: indexed })
  t.same(report.mismatches, [], `verify-index: blocks 0..${indexed} agree with the node`)
})
