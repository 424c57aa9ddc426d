// The node the gateway talks to: our own supervised Geth in DATA_DIR, or an
// already running one at GETH_RPC_URL.
import { pathExists } from '../core/fs/path-exists.ts'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { execa } from 'execa'
import type { Logger } from '../core/logger.ts'
import type { Config } from '../core/config.ts'
import { ChainMismatchError, GethStartFailedError } from '../core/errors.ts'
import { createRpcClient, type RpcClient } from '../core/rpc/client.ts'
import { findFreePort } from '../core/net/free-port.ts'
import { findGeth } from './install.ts'
import { FAUCET_BALANCE_WEI, buildGenesis, readGenesisAlloc } from './genesis.ts'
import { loadOrCreateNodeKeys, type NodeKeys } from './keys.ts'
import { PREIMAGE_ARGS, buildGethArgs } from './args.ts'
import { createGethSupervisor, type GethSupervisor } from './supervisor.ts'
import { waitForRpc } from './ready.ts'
import { startSealerWatchdog, type SealerWatchdog } from './sealer-watchdog.ts'
import type { Clock } from '../core/clock.ts'

const EXTERNAL_READY_TIMEOUT_MS = 30_000

export type GethNode = {
  rpc: RpcClient
  /** WebSocket endpoint of our own Geth, or an external node's GETH_WS_URL (undefined when unset). */
  wsUrl: string | undefined
  keys: NodeKeys | undefined
  supervisor: GethSupervisor | undefined
  start (): Promise<void>
  stop (): Promise<void>
}

export type GethNodeOptions = {
  config: Config
  log: Logger
  signal?: AbortSignal | undefined
  /** For the supervisor's restart backoff and the sealer watchdog: real timers unless a test fakes them. */
  clock?: Clock
  /** Which node config.geth.rpcUrl is, for the log, when it is not GETH_RPC_URL's (ops: a running gateway's). */
  externalNode?: string
}

export async function createGethNode ({ config, log, signal, clock, externalNode = 'the node at GETH_RPC_URL' }: GethNodeOptions): Promise<GethNode> {
  if (config.geth.rpcUrl !== undefined) return createExternalNode(config, config.geth.rpcUrl, log, externalNode)
  const gethDir = join(config.dataDir, 'geth')
  await mkdir(gethDir, { recursive: true })
  const bin = await findGeth({ bin: config.geth.bin, cacheDir: config.geth.cacheDir, log, env: config.childEnv, signal })
  const keys = await loadOrCreateNodeKeys(config.dataDir)
  await initialiseChain({ config, bin, gethDir, keys, log })
  const [httpPort, wsPort, authPort] = [await findFreePort(), await findFreePort(), await findFreePort()]
  const rpc = createRpcClient({ url: `http://127.0.0.1:${httpPort}`, timeoutMs: config.rpcProxy.timeoutMs })
  const supervisor = createGethSupervisor({
    bin,
    args: buildGethArgs({ gethDir, ...keys, chainId: config.chainId, httpPort, wsPort, authPort, gcmode: config.geth.gcmode, maxPeers: config.geth.maxPeers }),
    rpc,
    log,
    pidFile: join(config.dataDir, 'geth.pid'),
    gethDir,
    env: gethEnv(config),
    clock
  })
  // The chain's own period, from the genesis it was initialised with (CLIQUE_PERIOD applies on first start only).
  const period = await readCliquePeriod(join(config.dataDir, 'genesis.json'))
  let watchdog: SealerWatchdog | undefined
  return {
    rpc,
    wsUrl: `ws://127.0.0.1:${wsPort}`,
    keys,
    supervisor,
    async start () {
      await supervisor.start()
      await checkChainId(rpc, config.chainId)
      if (period === 0) watchdog ??= startSealerWatchdog({ rpc, log, clock })
    },
    async stop () {
      watchdog?.stop()
      watchdog = undefined
      await supervisor.stop()
      await rpc.close()
    }
  }
}

function createExternalNode (config: Config, url: string, log: Logger, name: string): GethNode {
  const rpc = createRpcClient({ url, timeoutMs: config.rpcProxy.timeoutMs })
  return {
    rpc,
    wsUrl: config.geth.wsUrl,
    keys: undefined,
    supervisor: undefined,
    async start () {
      try {
        await waitForRpc(rpc, { timeoutMs: EXTERNAL_READY_TIMEOUT_MS })
      } catch (err) {
        throw new GethStartFailedError((err as Error).message)
      }
      await checkChainId(rpc, config.chainId)
      log.info({ rpc: url, ws: config.geth.wsUrl }, `using ${name}`)
    },
    stop: () => rpc.close()
  }
}

async function checkChainId (rpc: RpcClient, chainId: number): Promise<void> {
  const actual = Number(await rpc.call<string>('eth_chainId'))
  if (actual !== chainId) throw new ChainMismatchError(rpc.url, String(actual))
}

type InitOptions = { config: Config, bin: string, gethDir: string, keys: NodeKeys, log: Logger }

/** Writes the genesis and runs `geth init` once; an initialised chain is never touched again. */
async function initialiseChain ({ config, bin, gethDir, keys, log }: InitOptions): Promise<void> {
  if (await pathExists(join(gethDir, 'geth', 'chaindata'))) {
    log.debug({ gethDir }, 'chain already initialised; CLIQUE_PERIOD and GENESIS_ALLOC apply only on first start')
    return
  }
  const userAlloc = config.geth.genesisAlloc ? await readGenesisAlloc(config.geth.genesisAlloc) : {}
  const alloc = { [keys.faucet.address]: { balance: '0x' + FAUCET_BALANCE_WEI.toString(16) }, ...userAlloc }
  const genesis = buildGenesis({ chainId: config.chainId, signer: keys.signer, cliquePeriod: config.geth.cliquePeriod, alloc })
  const genesisFile = join(config.dataDir, 'genesis.json')
  await writeFile(genesisFile, JSON.stringify(genesis, null, 2))
  const result = await execa(bin, ['init', ...PREIMAGE_ARGS, '--datadir', gethDir, genesisFile], { reject: false, all: true, extendEnv: false, env: gethEnv(config) })
  if (result.exitCode !== 0) throw new GethStartFailedError(`geth init failed: ${String(result.all).slice(-2000)}`)
  log.info({ chain_id: config.chainId, signer: keys.signer, faucet: keys.faucet.address, clique_period_s: config.geth.cliquePeriod }, 'genesis written and chain initialised')
}

/** The clique period of the genesis file; undefined when there is none to read. */
async function readCliquePeriod (genesisFile: string): Promise<number | undefined> {
  try {
    const genesis = JSON.parse(await readFile(genesisFile, 'utf8')) as { config?: { clique?: { period?: number } } }
    return genesis.config?.clique?.period
  } catch {
    return undefined
  }
}

/** Geth reads GETH_* variables as flags: it gets PATH and HOME only. */
function gethEnv (config: Config): Record<string, string> {
  const { PATH = '/usr/bin:/bin', HOME = '/' } = config.childEnv
  return { PATH, HOME }
}
