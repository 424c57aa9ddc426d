// Whose rate-limit budget a public request spends, and whose faucet cooldown:
// its client address, with IPv6 counted per /64. One IPv6 subscriber is
// usually handed a whole /64, so counting single addresses would give one
// client 2^64 budgets (and drips).
import { isIPv6 } from 'node:net'

const MAPPED_IPV4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i

/** The counter name of an address: IPv4 as it is, IPv6 as its /64 prefix. */
export function clientBucket (address: string): string {
  if (!isIPv6(address)) return address
  const mapped = MAPPED_IPV4.exec(address)
  if (mapped !== null) return mapped[1]!
  return prefix64(address) + '::/64'
}

/** The first four groups of an IPv6 address, each without leading zeros. */
function prefix64 (address: string): string {
  const withoutZone = address.split('%')[0]!
  const [head = '', tail] = withoutZone.split('::') as [string, string | undefined]
  const headGroups = head === '' ? [] : head.split(':')
  let groups = headGroups
  if (tail !== undefined) {
    const tailGroups = tail === '' ? [] : tail.split(':')
    // An embedded IPv4 tail (::1.2.3.4) counts as two groups; it never reaches the first four.
    const tailLength = tailGroups.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0)
    groups = [...headGroups, ...Array<string>(8 - headGroups.length - tailLength).fill('0'), ...tailGroups]
  }
  return groups.slice(0, 4).map((g) => g.includes('.') ? '0' : (parseInt(g, 16) || 0).toString(16)).join(':')
}
