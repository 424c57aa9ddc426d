// The node the gateway talks to: our own supervised Geth in DATA_DIR, or an
// already running one at GETH_RPC_URL.
import { pathExists } from '../core/fs/path-exists.ts'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { execa } from 'execa'
import type { Logger } from '../core/logger.ts'
import type { Config } from '../core/config.ts'
import { ChainMismatchError, GenesisMismatchError, GethStartFailedError } from '../core/errors.ts'
import { createRpcClient, type RpcClient } from '../core/rpc/client.ts'
import { findFreePort } from '../core/net/free-port.ts'
import { findGeth } from './install.ts'
import { FAUCET_BALANCE_WEI, buildGenesis, readGenesisAlloc } from './genesis.ts'
import { loadOrCreateNodeKeys, type NodeKeys } from './keys.ts'
import { PREIMAGE_ARGS, buildGethArgs } from './args.ts'
import { createGethSupervisor, type GethSupervisor } from './supervisor.ts'
import { waitForRpc } from './ready.ts'
import { startSealerWatchdog, type SealerWatchdog } from './sealer-watchdog.ts'
import { startSignerRole, type SignerRole } from './signer-role.ts'
import { loadOrCreateNodeId, writeStaticNodesConfig } from './p2p.ts'
import { fetchJoinInfo, readSavedJoin, saveJoinInfo, type JoinInfo } from './join.ts'
import type { Clock } from '../core/clock.ts'

const EXTERNAL_READY_TIMEOUT_MS = 30_000

export type GethNode = {
  rpc: RpcClient
  /** WebSocket endpoint of our own Geth, or an external node's GETH_WS_URL (undefined when unset). */
  wsUrl: string | undefined
  keys: NodeKeys | undefined
  supervisor: GethSupervisor | undefined
  /** What /genesis.json and /api/v2/network publish: our own Geth's genesis file and, with P2P_PORT, its node id and port. */
  published: PublishedNode | undefined
  start (): Promise<void>
  stop (): Promise<void>
}

export type PublishedNode = {
  /** DATA_DIR/genesis.json, exactly as Geth was initialised with it. */
  genesisFile: string
  /** Set when P2P_PORT is: the enode URL's id and port (its host is P2P_EXTERNAL_IP or the one asked by). */
  p2p: { nodeId: string, port: number, externalIp: string | undefined } | undefined
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
  const initialised = await pathExists(join(gethDir, 'geth', 'chaindata'))
  const join_ = await readJoin(config, initialised, log, signal)
  if (!initialised) await initialiseChain({ config, bin, gethDir, keys, log, join: join_ })
  const genesisFile = join(config.dataDir, 'genesis.json')
  const genesis = await readGenesis(genesisFile)
  const nodeId = await loadOrCreateNodeId(gethDir)
  const peers = [...new Set([...config.geth.peers, ...(join_?.enodes ?? [])])]
  const configFile = join(config.dataDir, 'geth.toml')
  if (peers.length > 0) await writeStaticNodesConfig(configFile, peers)
  const [httpPort, wsPort, authPort] = [await findFreePort(), await findFreePort(), await findFreePort()]
  const rpc = createRpcClient({ url: `http://127.0.0.1:${httpPort}`, timeoutMs: config.rpcProxy.timeoutMs })
  const supervisor = createGethSupervisor({
    bin,
    args: buildGethArgs({
      gethDir,
      ...keys,
      chainId: config.chainId,
      httpPort,
      wsPort,
      authPort,
      gcmode: config.geth.gcmode,
      maxPeers: config.geth.maxPeers,
      p2pPort: config.geth.p2pPort,
      externalIp: config.geth.externalIp,
      configFile: peers.length > 0 ? configFile : undefined,
      // Only a signer named by the genesis seals from the first block; any
      // other (a joined instance) once voted in (signer-role.ts).
      seal: genesis?.extraData?.toLowerCase().includes(keys.signer.slice(2).toLowerCase()) === true
    }),
    rpc,
    log,
    pidFile: join(config.dataDir, 'geth.pid'),
    gethDir,
    env: gethEnv(config),
    clock
  })
  // The chain's own period, from the genesis it was initialised with (CLIQUE_PERIOD applies on first start only).
  const period = genesis?.config?.clique?.period
  let watchdog: SealerWatchdog | undefined
  let role: SignerRole | undefined
  // A restarted Geth mines as its flags say: the role's next look acts on whatever it finds.
  supervisor.on('restarted', () => role?.forget())
  return {
    rpc,
    wsUrl: `ws://127.0.0.1:${wsPort}`,
    keys,
    supervisor,
    published: {
      genesisFile,
      p2p: config.geth.p2pPort !== undefined ? { nodeId, port: config.geth.p2pPort, externalIp: config.geth.externalIp } : undefined
    },
    async start () {
      await supervisor.start()
      try {
        await checkChainId(rpc, config.chainId)
        if (join_ !== undefined) await checkGenesisHash(rpc, join_)
        if (join_?.fetched !== undefined) await saveJoinInfo(config.dataDir, join_.fetched)
      } catch (err) {
        await supervisor.stop()
        throw err
      }
      role ??= startSignerRole({ rpc, signer: keys.signer, log, clock })
      await role.check()
      const signerRole = role
      if (period === 0) watchdog ??= startSealerWatchdog({ rpc, log, clock, isSigner: () => signerRole.authorized })
    },
    async stop () {
      watchdog?.stop()
      watchdog = undefined
      role?.stop()
      role = undefined
      await supervisor.stop()
      await rpc.close()
    }
  }
}

type Join = { url: string, genesisHash: string, enodes: string[], fetched: JoinInfo | undefined }

/**
 * JOIN_URL's genesis and peers: fetched afresh when it answers (and kept in
 * DATA_DIR/join.json), else the ones kept at an earlier start, so a joined
 * instance starts while the instance it joined is away. A data directory
 * joined earlier keeps its peers without JOIN_URL too.
 */
async function readJoin (config: Config, initialised: boolean, log: Logger, signal: AbortSignal | undefined): Promise<Join | undefined> {
  const saved = await readSavedJoin(config.dataDir)
  const url = config.geth.joinUrl
  if (url === undefined) return saved !== undefined ? { ...saved, fetched: undefined } : undefined
  try {
    const fetched = await fetchJoinInfo(url, signal)
    if (fetched.chainId !== config.chainId) throw new ChainMismatchError(url, String(fetched.chainId))
    // Kept only once the chain is known to be the same (checkGenesisHash), for a DATA_DIR of another chain.
    return { url, genesisHash: fetched.genesisHash, enodes: fetched.enodes, fetched }
  } catch (err) {
    if (!initialised || saved === undefined || (err as { code?: string }).code === 'GW_ERR_CHAIN_MISMATCH') throw err
    log.warn({ join_url: url, err: (err as Error).message }, 'JOIN_URL does not answer; using the genesis hash and peers kept at the last join')
    return { ...saved, fetched: undefined }
  }
}

async function checkGenesisHash (rpc: RpcClient, join_: Join): Promise<void> {
  const genesis = await rpc.call<{ hash: string }>('eth_getBlockByNumber', ['0x0', false])
  if (genesis.hash.toLowerCase() !== join_.genesisHash) throw new GenesisMismatchError(genesis.hash, join_.url, join_.genesisHash)
}

function createExternalNode (config: Config, url: string, log: Logger, name: string): GethNode {
  const rpc = createRpcClient({ url, timeoutMs: config.rpcProxy.timeoutMs })
  return {
    rpc,
    wsUrl: config.geth.wsUrl,
    keys: undefined,
    supervisor: undefined,
    published: undefined,
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

type InitOptions = { config: Config, bin: string, gethDir: string, keys: NodeKeys, log: Logger, join: Join | undefined }

/**
 * Writes the genesis and runs `geth init` once; an initialised chain is never
 * touched again. A joining instance takes JOIN_URL's genesis byte for byte
 * (so it publishes the very same file); a first instance makes its own, with
 * its key as the only signer.
 */
async function initialiseChain ({ config, bin, gethDir, keys, log, join: join_ }: InitOptions): Promise<void> {
  const genesisFile = join(config.dataDir, 'genesis.json')
  if (join_?.fetched !== undefined) {
    await writeFile(genesisFile, join_.fetched.genesisText)
  } else {
    const userAlloc = config.geth.genesisAlloc ? await readGenesisAlloc(config.geth.genesisAlloc) : {}
    const alloc = { [keys.faucet.address]: { balance: '0x' + FAUCET_BALANCE_WEI.toString(16) }, ...userAlloc }
    const genesis = buildGenesis({ chainId: config.chainId, signer: keys.signer, cliquePeriod: config.geth.cliquePeriod, alloc })
    await writeFile(genesisFile, JSON.stringify(genesis, null, 2))
  }
  const result = await execa(bin, ['init', ...PREIMAGE_ARGS, '--datadir', gethDir, genesisFile], { reject: false, all: true, extendEnv: false, env: gethEnv(config) })
  if (result.exitCode !== 0) throw new GethStartFailedError(`geth init failed: ${String(result.all).slice(-2000)}`)
  if (join_?.fetched !== undefined) {
    log.info({ chain_id: config.chainId, join_url: join_.url, genesis_hash: join_.genesisHash, peers: join_.enodes, signer: keys.signer }, 'joined: genesis fetched and chain initialised; this key seals once the signers vote it in')
    return
  }
  log.info({ chain_id: config.chainId, signer: keys.signer, faucet: keys.faucet.address, clique_period_s: config.geth.cliquePeriod }, 'genesis written and chain initialised')
}

type GenesisFile = { extraData?: string, config?: { clique?: { period?: number } } }

/** The genesis Geth was initialised with; undefined when there is none to read. */
async function readGenesis (genesisFile: string): Promise<GenesisFile | undefined> {
  try {
    return JSON.parse(await readFile(genesisFile, 'utf8')) as GenesisFile
  } catch {
    return undefined
  }
}

/** Geth reads GETH_* variables as flags: it gets PATH and HOME only. */
function gethEnv (config: Config): Record<string, string> {
  const { PATH = '/usr/bin:/bin', HOME = '/' } = config.childEnv
  return { PATH, HOME }
}
