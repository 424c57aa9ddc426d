// Whom a faucet cooldown is kept for: an IPv4 address, or an IPv6 /64. One
// IPv6 subscriber usually holds a whole /64 (often far more), so keying on the
// full address would let anyone drip again by changing the low bits.
import { isIP } from 'node:net'

export function faucetClientKey (ip: string): string {
  // IPv4 clients of a dual-stack socket arrive as ::ffff:a.b.c.d.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  if (mapped !== null) return mapped[1]!
  if (isIP(ip) !== 6) return ip
  return `${expandIpv6(ip).slice(0, 4).join(':')}::/64`
}

/** The eight 16-bit groups of an IPv6 address, as lower-case hex without leading zeros. */
function expandIpv6 (ip: string): string[] {
  const address = ip.split('%')[0]!.toLowerCase()
  const [head = '', tail] = address.split('::') as [string, string | undefined]
  const groups = (part: string): string[] => part === '' ? [] : part.split(':').flatMap(dottedToGroups)
  const left = groups(head)
  const right = tail === undefined ? [] : groups(tail)
  const zeros = Array<string>(8 - left.length - right.length).fill('0')
  return [...left, ...zeros, ...right].map((g) => (parseInt(g, 16) || 0).toString(16))
}

/** An embedded IPv4 tail (::ffff:1.2.3.4 forms) is two groups. */
function dottedToGroups (group: string): string[] {
  if (!group.includes('.')) return [group]
  const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number)
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)]
}
