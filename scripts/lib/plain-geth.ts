// A plain Geth beside the gateway's, with the project's built binary: a node
// initialised from an instance's genesis.json (the same chain; it stays at
// the genesis unless peered with `addPeer`), or `--dev` (another chain, ID
// 1337). Loopback only, no discovery, no IPC; stopped on teardown. Tests and
// `npm run faults` use it as another node of the network (RPC_UPSTREAMS).
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { execa } from 'execa'
import { SigningKey } from 'ethers'
import { findFreePort } from '../../core/net/free-port.ts'
import { createRpcClient, type RpcClient } from '../../core/rpc/client.ts'
import type { Teardown } from './gateway-process.ts'

export type PlainGeth = {
  url: string
  rpc: RpcClient
  /** Dials a node of the same chain as a static peer (redialled when it goes away). */
  addPeer (enode: string): Promise<void>
  stop (): Promise<void>
}

const READY_TIMEOUT_MS = 60_000
const MAX_PEERS = 5

/**
 * `genesisFile`: a node of that chain (`networkId` its chain ID); without it a `--dev` node.
 * `peers`: it may have peers (it dials those given to addPeer; no discovery either way).
 */
export async function startPlainGeth (t: Teardown, bin: string, o: { genesisFile?: string, networkId?: number, peers?: boolean } = {}): Promise<PlainGeth> {
  const dataDir = await mkdtemp(join(tmpdir(), 'tg-plain-geth-'))
  t.teardown(async () => await rm(dataDir, { recursive: true, force: true }))
  const chainArgs = o.genesisFile === undefined ? ['--dev'] : ['--networkid', String(o.networkId), '--syncmode', 'full', '--gcmode', 'archive']
  if (o.genesisFile !== undefined) await execa(bin, ['init', '--datadir', dataDir, o.genesisFile])
  const [httpPort, authPort] = [await findFreePort(), await findFreePort()]
  const child: ChildProcess = spawn(bin, ['--datadir', dataDir, ...chainArgs, '--nodiscover', '--maxpeers', o.peers === true ? String(MAX_PEERS) : '0', '--port', '0', '--nat', 'none', '--ipcdisable',
    '--http', '--http.addr', '127.0.0.1', '--http.port', String(httpPort), '--http.api', 'eth,net,web3,txpool,admin',
    '--authrpc.addr', '127.0.0.1', '--authrpc.port', String(authPort), '--verbosity', '1'], { stdio: 'ignore' })
  const url = `http://127.0.0.1:${httpPort}`
  const rpc = createRpcClient({ url, timeoutMs: 5000 })
  let stopped = false
  const stop = async (): Promise<void> => {
    if (stopped) return
    stopped = true
    await rpc.close()
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = once(child, 'exit')
    child.kill('SIGTERM')
    await exited
  }
  t.teardown(stop)
  const deadline = Date.now() + READY_TIMEOUT_MS
  for (;;) {
    try {
      await rpc.call('eth_chainId')
      break
    } catch (err) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`plain Geth did not answer at ${url}: ${(err as Error).message}`)
      await sleep(100)
    }
  }
  return {
    url,
    rpc,
    async addPeer (enode) {
      if (await rpc.call<boolean>('admin_addPeer', [enode]) !== true) throw new Error(`admin_addPeer refused ${enode}`)
    },
    stop
  }
}

/** The enode URL of a Geth listening for peers on `port` of loopback, from its node key (<datadir>/geth/nodekey, hex). */
export function enodeOf (nodeKeyHex: string, port: number): string {
  const publicKey = new SigningKey('0x' + nodeKeyHex.trim()).publicKey
  // Uncompressed: 0x04 and the two coordinates, which is the enode's ID.
  return `enode://${publicKey.slice(4)}@127.0.0.1:${port}`
}
