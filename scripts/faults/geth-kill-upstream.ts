// (h) Geth killed with SIGKILL under JSON-RPC load, as in geth-kill, with
// RPC_UPSTREAMS naming another node of the chain: a plain Geth initialised
// from DATA_DIR/genesis.json and peered with the gateway's (which listens for
// peers for this scenario on a free P2P_PORT), synced to its head.
// While the supervisor restarts the local Geth, reads and transfers are
// answered through the upstream: (nearly) no -32603. The gateway is started
// again without upstreams after it.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { CHAIN_ID, loadConfig } from '../../core/config.ts'
import { cachedGethPath } from '../../geth/install.ts'
import { nodeKeyFile } from '../../geth/p2p.ts'
import { findFreePort } from '../../core/net/free-port.ts'
import { startGatewayProcess, waitFor } from '../lib/gateway-process.ts'
import { enodeOf, startPlainGeth } from '../lib/plain-geth.ts'
import { createScenarioRecord, expectRecovered, type FaultContext, type ScenarioResult } from './context.ts'
import { callRpc, nodeHead, startReadLoad, startTransfers } from './traffic.ts'

const LOAD_CONCURRENCY = 4
const LOAD_BEFORE_KILL_MS = 2000
const LOAD_AFTER_RESTART_MS = 2000
const CHECK_INTERVAL_MS = 250
/** Down this long, the load's reads (thousands a second) meet the restart many times over; a quiet machine restarts Geth in under a second. */
const MIN_DOWN_MS = 250
/** A read asked at the instant of the kill may find no upstream usable yet: a few -32603 of thousands are "nearly none". */
const MAX_INTERNAL_ERRORS = 5

export async function gethKillUpstream (context: FaultContext): Promise<ScenarioResult> {
  const record = createScenarioRecord('geth-kill-upstream', 'Geth SIGKILL under JSON-RPC load, with an upstream')
  // The Geth the gateway itself finds: GETH_BIN, else the cache its configuration names.
  const geth = loadConfig({ ...process.env, ...context.env }).geth
  const bin = geth.bin ?? cachedGethPath(geth.cacheDir)
  const upstream = await startPlainGeth(context.cleanups, bin, { genesisFile: join(context.dataDir, 'genesis.json'), networkId: CHAIN_ID, peers: true })
  context.gateway.kill('SIGTERM')
  await context.gateway.exited
  const p2pPort = await findFreePort()
  const gateway = await startGatewayProcess(context.cleanups, {
    ...context.env,
    P2P_PORT: String(p2pPort),
    RPC_UPSTREAMS: upstream.url,
    RPC_UPSTREAM_CHECK_INTERVAL_MS: String(CHECK_INTERVAL_MS)
  })
  const gethPid = context.gethPid
  try {
    const nodeKey = await readFile(nodeKeyFile(join(context.dataDir, 'geth')), 'utf8')
    await upstream.addPeer(enodeOf(nodeKey, p2pPort))
    const syncStartedAt = Date.now()
    const head = await nodeHead(gateway.url)
    await waitFor(`the upstream to sync to block ${head}`, async () => Number(await upstream.rpc.call<string>('eth_blockNumber')) >= head ? true : undefined, context.timeoutMs)
    record.figure(`upstream synced ${head} blocks over p2p in ${((Date.now() - syncStartedAt) / 1000).toFixed(1)} s`)
    const load = startReadLoad(gateway.url, context.sender.address, LOAD_CONCURRENCY)
    const transfers = startTransfers(() => gateway.url, context.sender)
    let downMs = 0
    try {
      await sleep(LOAD_BEFORE_KILL_MS)
      const killed = await gethPid()
      process.kill(killed, 'SIGKILL')
      const killedAt = Date.now()
      // /health asks the local node itself, never an upstream.
      await waitFor('Geth to be restarted and answer', async () => {
        if (await gethPid() === killed) return undefined
        const health = await fetch(`${gateway.url}/health`).then(async (r) => await r.json() as { geth?: { status?: string } }, () => undefined)
        return health?.geth?.status === 'ok' ? true : undefined
      }, context.timeoutMs)
      downMs = Date.now() - killedAt
      await sleep(LOAD_AFTER_RESTART_MS)
    } finally {
      const f = await load.stop()
      const t = await transfers.stop()
      const health = await fetch(`${gateway.url}/health`).then(async (r) => await r.json() as { upstreams?: Array<{ used: number, status: string }> }, () => undefined)
      const used = health?.upstreams?.[0]?.used ?? 0
      record.figure(`down ${(downMs / 1000).toFixed(1)} s; ${f.requests} reads: ${f.results} results, ${f.internalErrors} -32603, ${f.other} other; slowest answer ${f.maxMs.toFixed(0)} ms; ${t.sent} transfers sent, ${t.failed} failed; the upstream answered ${used} requests`)
      record.expect(gateway.lines.some((l) => l.msg === 'geth exited unexpectedly; restarting'), 'the supervisor logged no restart')
      record.expect(downMs >= MIN_DOWN_MS, `the local node was down only ${downMs} ms: too short to show anything`)
      record.expect(f.internalErrors <= MAX_INTERNAL_ERRORS, `${f.internalErrors} answers were -32603 (at most ${MAX_INTERNAL_ERRORS})`)
      record.expect(used > 0, 'the upstream answered nothing')
      record.expect(f.other === 0, `answers other than a result or -32603: ${f.other}, first ${f.firstOther}`)
    }
    const answer = await callRpc(gateway.url, 'eth_blockNumber')
    record.expect(typeof answer.body?.result === 'string', `eth_blockNumber after: ${JSON.stringify(answer.body)}`)
  } finally {
    gateway.kill('SIGTERM')
    await gateway.exited
    await upstream.stop()
    await context.startGateway()
  }
  await expectRecovered(context, record)
  return record.result()
}
