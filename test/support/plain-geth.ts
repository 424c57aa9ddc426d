// A plain Geth of the test's own beside the gateway's, with the project's
// built binary: a node initialised from an instance's genesis.json (the same
// chain, not peered: it stays at the genesis), or `--dev` (another chain, ID
// 1337). Loopback only, no discovery, no IPC; stopped on teardown.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { execa } from 'execa'
import { findFreePort } from '../../core/net/free-port.ts'
import { createRpcClient, type RpcClient } from '../../core/rpc/client.ts'

type Tap = { teardown (fn: () => unknown): void }

export type PlainGeth = { url: string, rpc: RpcClient, stop (): Promise<void> }

const READY_TIMEOUT_MS = 60_000

/** `genesisFile`: a node of that chain (`networkId` its chain ID); without it a `--dev` node. */
export async function startPlainGeth (t: Tap, bin: string, o: { genesisFile?: string, networkId?: number } = {}): Promise<PlainGeth> {
  const dataDir = await mkdtemp(join(tmpdir(), 'tg-plain-geth-'))
  t.teardown(async () => await rm(dataDir, { recursive: true, force: true }))
  const chainArgs = o.genesisFile === undefined ? ['--dev'] : ['--networkid', String(o.networkId), '--syncmode', 'full', '--gcmode', 'archive']
  if (o.genesisFile !== undefined) await execa(bin, ['init', '--datadir', dataDir, o.genesisFile])
  const [httpPort, authPort] = [await findFreePort(), await findFreePort()]
  const child: ChildProcess = spawn(bin, ['--datadir', dataDir, ...chainArgs, '--nodiscover', '--maxpeers', '0', '--port', '0', '--nat', 'none', '--ipcdisable',
    '--http', '--http.addr', '127.0.0.1', '--http.port', String(httpPort), '--http.api', 'eth,net,web3,txpool',
    '--authrpc.addr', '127.0.0.1', '--authrpc.port', String(authPort), '--verbosity', '1'], { stdio: 'ignore' })
  const url = `http://127.0.0.1:${httpPort}`
  const rpc = createRpcClient({ url, timeoutMs: 5000 })
  const stop = async (): Promise<void> => {
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
  return { url, rpc, stop }
}
