// Addresses and CIDR subnets as operators write them (METRICS_ALLOW, TRUST_PROXY).
import { BlockList, isIP } from 'node:net'

/** An address or a subnet (`10.0.0.0/8`, `2001:db8::/32`); what METRICS_ALLOW holds, comma-separated. */
export function isAddressOrSubnet (entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || extra !== undefined) return false
  if (prefix === undefined) return true
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)
}

/**
 * A test of whether an address is one of `entries` (addresses or subnets, each
 * checked by isAddressOrSubnet; throws on another). IPv4 clients of a
 * dual-stack socket arrive as ::ffff:a.b.c.d and are matched as a.b.c.d.
 */
export function createAddressMatcher (entries: readonly string[]): (ip: string) => boolean {
  const list = new BlockList()
  for (const entry of entries) {
    if (!isAddressOrSubnet(entry)) throw new Error(`not an address or subnet: ${entry}`)
    const [address, prefix] = entry.split('/') as [string, string | undefined]
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6'
    if (prefix === undefined) list.addAddress(address, type)
    else list.addSubnet(address, Number(prefix), type)
  }
  return (ip) => {
    const address = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1] ?? ip
    const family = isIP(address)
    return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6')
  }
}
