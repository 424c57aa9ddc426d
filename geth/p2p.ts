// Geth's peer-to-peer side: its node key (which names it in enode URLs), the
// static peers it dials, and the enode URLs an instance publishes. Discovery
// stays off: a testnet's nodes are known (a joining instance learns them from
// /api/v2/network), and static peers are dialled and redialled without it.
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { SigningKey } from 'ethers'
import { pathExists } from '../core/fs/path-exists.ts'

const ENODE_PATTERN = /^enode:\/\/[0-9a-f]{128}@[^:/?#\s]+:\d{1,5}(\?[^\s]*)?$/i

export function isEnodeUrl (value: string): boolean {
  return ENODE_PATTERN.test(value)
}

/** Where Geth keeps its node key (hex, no 0x): made here on first start so the enode is known before Geth runs. */
export function nodeKeyFile (gethDir: string): string {
  return join(gethDir, 'geth', 'nodekey')
}

/** The node key's public half, 128 hex digits: the id part of an enode URL. */
export async function loadOrCreateNodeId (gethDir: string): Promise<string> {
  const file = nodeKeyFile(gethDir)
  if (!await pathExists(file)) {
    await mkdir(join(gethDir, 'geth'), { recursive: true })
    await writeFile(file, randomBytes(32).toString('hex'), { mode: 0o600 })
  }
  const key = (await readFile(file, 'utf8')).trim()
  return new SigningKey('0x' + key).publicKey.slice(4)
}

export function enodeUrl (nodeId: string, host: string, port: number): string {
  return `enode://${nodeId}@${host}:${port}`
}

/**
 * A config file Geth reads with --config: Node.P2P.StaticNodes are dialled at
 * start and redialled when lost. (With --nodiscover, --bootnodes alone dials
 * nothing on our side; the deprecated static-nodes.json would warn.)
 */
export async function writeStaticNodesConfig (file: string, enodes: readonly string[]): Promise<void> {
  const list = enodes.map((enode) => JSON.stringify(enode)).join(', ')
  await writeFile(file, `# Written by the gateway at each start (P2P_PEERS and JOIN_URL's peers).\n[Node.P2P]\nStaticNodes = [${list}]\n`)
}
