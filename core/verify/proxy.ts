// Whether a contract is a proxy, read from the node when its detail is asked
// for: EIP-1167 from the code itself, EIP-1967 (implementation or beacon
// slot) and EIP-1822 (PROXIABLE slot) from storage, at the latest block or at
// a given one: a transaction's interpretation reads the proxy as it was when
// the transaction ran, so that every instance, and every later reading, names
// the same implementation whatever upgrades came after. Answers are kept a
// few seconds: a detail page asks twice and an upgrade shows soon enough.
import type { RpcClient } from '../rpc/client.ts'

export type ProxyInfo = { type: 'eip1167' | 'eip1967' | 'eip1822', implementations: string[] }

/** keccak256('eip1967.proxy.implementation') - 1 */
export const EIP1967_IMPLEMENTATION_SLOT = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc'
/** keccak256('eip1967.proxy.beacon') - 1 */
export const EIP1967_BEACON_SLOT = '0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50'
/** keccak256('PROXIABLE') */
export const EIP1822_PROXIABLE_SLOT = '0xc5f16f0fcc639fa48a6947836d9850f504798523bf8c9a3a87d5876cf622bcf7'
/** implementation() on a beacon. */
const IMPLEMENTATION_SELECTOR = '0x5c60da1b'
const MINIMAL_PROXY = /^363d3d373d3d3d363d73([0-9a-f]{40})5af43d82803e903d91602b57fd5bf3$/
const CACHE_MS = 10_000
const CACHE_MAX = 10_000

/** The address in a 32-byte word, or undefined for zero. */
function wordAddress (word: string | undefined): string | undefined {
  if (word === undefined || !/^0x[0-9a-fA-F]{64}$/.test(word)) return undefined
  const address = '0x' + word.slice(-40).toLowerCase()
  return /^0x0{40}$/.test(address) ? undefined : address
}

export type ProxyDetector = {
  /** The proxy at `address` (its code given) at block `blockNumber`, else at the latest block. */
  detect (address: string, code: string, blockNumber?: number): Promise<ProxyInfo | undefined>
}

export function createProxyDetector (rpc: RpcClient): ProxyDetector {
  const cache = new Map<string, { at: number, info: Promise<ProxyInfo | undefined> }>()

  async function read (address: string, code: string, block: string): Promise<ProxyInfo | undefined> {
    const minimal = MINIMAL_PROXY.exec(code.replace(/^0x/, '').toLowerCase())
    if (minimal !== null) return { type: 'eip1167', implementations: ['0x' + minimal[1]] }
    const [implementation, beacon, proxiable] = await rpc.batch<string>([EIP1967_IMPLEMENTATION_SLOT, EIP1967_BEACON_SLOT, EIP1822_PROXIABLE_SLOT]
      .map((slot) => ({ method: 'eth_getStorageAt', params: [address, slot, block] })))
    const direct = wordAddress(implementation)
    if (direct !== undefined) return { type: 'eip1967', implementations: [direct] }
    const beaconAddress = wordAddress(beacon)
    if (beaconAddress !== undefined) {
      const answer = await rpc.call<string>('eth_call', [{ to: beaconAddress, data: IMPLEMENTATION_SELECTOR }, block]).catch(() => undefined)
      const fromBeacon = wordAddress(answer)
      if (fromBeacon !== undefined) return { type: 'eip1967', implementations: [fromBeacon] }
    }
    const uups = wordAddress(proxiable)
    if (uups !== undefined) return { type: 'eip1822', implementations: [uups] }
    return undefined
  }

  return {
    async detect (address, code, blockNumber) {
      const block = blockNumber === undefined ? 'latest' : '0x' + blockNumber.toString(16)
      const key = `${address.toLowerCase()}@${block}`
      const now = Date.now()
      const cached = cache.get(key)
      if (cached !== undefined && now - cached.at < CACHE_MS) return await cached.info
      if (cache.size >= CACHE_MAX) cache.clear()
      const info = read(address.toLowerCase(), code, block)
      cache.set(key, { at: now, info })
      info.catch(() => cache.delete(key))
      return await info
    }
  }
}
