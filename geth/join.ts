// JOIN_URL: what a gateway publishes for a node to join its chain (GET
// /genesis.json and GET /api/v2/network), fetched by a new instance before its
// Geth is initialised, and kept in DATA_DIR/join.json so a later start finds
// its peers and the genesis hash it must have while that gateway is away.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { JoinFailedError } from '../core/errors.ts'
import { isEnodeUrl } from './p2p.ts'

const JOIN_FETCH_TIMEOUT_MS = 15_000
export const JOIN_FILE = 'join.json'

export type JoinInfo = {
  url: string
  /** The genesis exactly as served: written to DATA_DIR/genesis.json byte for byte. */
  genesisText: string
  genesisHash: string
  chainId: number
  enodes: string[]
}

type NetworkBody = { chain_id?: unknown, genesis_hash?: unknown, enodes?: unknown }

export async function fetchJoinInfo (url: string, signal?: AbortSignal): Promise<JoinInfo> {
  const base = url.replace(/\/+$/, '')
  const get = async (path: string): Promise<string> => {
    let response: Response
    try {
      response = await fetch(base + path, { signal: AbortSignal.any([AbortSignal.timeout(JOIN_FETCH_TIMEOUT_MS), ...(signal ? [signal] : [])]) })
    } catch (err) {
      throw new JoinFailedError(url, `GET ${path}: ${(err as Error).message}`)
    }
    if (!response.ok) throw new JoinFailedError(url, `GET ${path} answered ${response.status}`)
    return await response.text()
  }
  const [genesisText, networkText] = await Promise.all([get('/genesis.json'), get('/api/v2/network')])
  let network: NetworkBody
  try {
    JSON.parse(genesisText)
    network = JSON.parse(networkText) as NetworkBody
  } catch (err) {
    throw new JoinFailedError(url, `not JSON: ${(err as Error).message}`)
  }
  const { chain_id: chainId, genesis_hash: genesisHash, enodes } = network
  if (typeof chainId !== 'number' || typeof genesisHash !== 'string' || !Array.isArray(enodes)) {
    throw new JoinFailedError(url, '/api/v2/network has no chain_id, genesis_hash and enodes')
  }
  const peers = enodes.filter((enode): enode is string => typeof enode === 'string' && isEnodeUrl(enode))
  if (peers.length === 0) throw new JoinFailedError(url, 'it publishes no enode URL (its P2P_PORT is not set)')
  return { url, genesisText, genesisHash: genesisHash.toLowerCase(), chainId, enodes: peers }
}

export async function saveJoinInfo (dataDir: string, info: JoinInfo): Promise<void> {
  const { url, genesisHash, chainId, enodes } = info
  await writeFile(join(dataDir, JOIN_FILE), JSON.stringify({ url, genesis_hash: genesisHash, chain_id: chainId, enodes }, null, 2) + '\n')
}

export type SavedJoin = { url: string, genesisHash: string, enodes: string[] }

export async function readSavedJoin (dataDir: string): Promise<SavedJoin | undefined> {
  try {
    const saved = JSON.parse(await readFile(join(dataDir, JOIN_FILE), 'utf8')) as { url: string, genesis_hash: string, enodes: string[] }
    return { url: saved.url, genesisHash: saved.genesis_hash, enodes: saved.enodes }
  } catch {
    return undefined
  }
}
