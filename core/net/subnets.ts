// Addresses and CIDR subnets as operators write them (METRICS_ALLOW, TRUST_PROXY).
import { isIP } from 'node:net'

/** An address or a subnet (`10.0.0.0/8`, `2001:db8::/32`); what METRICS_ALLOW holds, comma-separated. */
export function isAddressOrSubnet (entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || extra !== undefined) return false
  if (prefix === undefined) return true
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)
}
