// Who may read /metrics: the figures say how busy the instance is and which
// methods are used, which is the operator's business. Loopback always (a
// Prometheus beside the gateway), the addresses or subnets METRICS_ALLOW lists,
// or anyone presenting ADMIN_TOKEN as a bearer token.
import { BlockList, isIP } from 'node:net'
import { isAddressOrSubnet } from '../net/subnets.ts'
import { createBearerTokenCheck } from '../net/bearer-token.ts'

export type MetricsAccess = { isAllowed (ip: string, authorization: string | undefined): boolean }

export type MetricsAccessOptions = { allow: readonly string[], adminToken: string | undefined }

/** Throws on an entry that is neither an address nor address/prefix (config checks this at boot). */
export function createMetricsAccess ({ allow, adminToken }: MetricsAccessOptions): MetricsAccess {
  const list = new BlockList()
  list.addSubnet('127.0.0.0', 8, 'ipv4')
  list.addAddress('::1', 'ipv6')
  for (const entry of allow) addEntry(list, entry)
  const isAdmin = adminToken === undefined ? () => false : createBearerTokenCheck(adminToken)
  return {
    isAllowed: (ip, authorization) => isListed(list, ip) || isAdmin(authorization)
  }
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
