// Who may read /metrics: the figures say how busy the instance is and which
// methods are used, which is the operator's business. Loopback always (a
// Prometheus beside the gateway), the addresses or subnets METRICS_ALLOW lists,
// or anyone presenting ADMIN_TOKEN as a bearer token.
import { BlockList, isIP } from 'node:net'
import { timingSafeEqual, createHash } from 'node:crypto'

export type MetricsAccess = { isAllowed (ip: string, authorization: string | undefined): boolean }

export type MetricsAccessOptions = { allow: readonly string[], adminToken: string | undefined }

/** Throws on an entry that is neither an address nor address/prefix (config checks this at boot). */
export function createMetricsAccess ({ allow, adminToken }: MetricsAccessOptions): MetricsAccess {
  const list = new BlockList()
  list.addSubnet('127.0.0.0', 8, 'ipv4')
  list.addAddress('::1', 'ipv6')
  for (const entry of allow) addEntry(list, entry)
  // Compared as digests: equal lengths for timingSafeEqual, and no early exit on the first differing byte.
  const tokenDigest = adminToken === undefined ? undefined : sha256(adminToken)
  return {
    isAllowed (ip, authorization) {
      if (isListed(list, ip)) return true
      if (tokenDigest === undefined || authorization === undefined) return false
      const match = /^Bearer\s+(\S+)$/i.exec(authorization)
      return match !== null && timingSafeEqual(sha256(match[1]!), tokenDigest)
    }
  }
}

/** An address or a subnet (`10.0.0.0/8`, `2001:db8::/32`); what METRICS_ALLOW holds, comma-separated. */
export function isAddressOrSubnet (entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || extra !== undefined) return false
  if (prefix === undefined) return true
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)
}

function addEntry (list: BlockList, entry: string): void {
  if (!isAddressOrSubnet(entry)) throw new Error(`not an address or subnet: ${entry}`)
  const [address, prefix] = entry.split('/') as [string, string | undefined]
  const type = isIP(address) === 4 ? 'ipv4' : 'ipv6'
  if (prefix === undefined) list.addAddress(address, type)
  else list.addSubnet(address, Number(prefix), type)
}

function isListed (list: BlockList, ip: string): boolean {
  // IPv4 clients of a dual-stack socket arrive as ::ffff:a.b.c.d.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  const address = mapped?.[1] ?? ip
  const family = isIP(address)
  if (family === 0) return false
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

function sha256 (text: string): Buffer {
  return createHash('sha256').update(text).digest()
}
