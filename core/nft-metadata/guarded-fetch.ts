// HTTP(S) GETs to addresses a token contract names: anyone can deploy a token
// whose URI points at this machine's own services (Geth's RPC, PostgreSQL, a
// cloud metadata endpoint), so every address a request would connect to, by
// name or literal, first or after a redirect, is checked against the private
// ranges; the answer is cut off past a size and the whole read past a time.
import { BlockList, isIP } from 'node:net'
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { Agent, fetch } from 'undici'

const MAX_REDIRECTS = 3

const PRIVATE = new BlockList()
for (const [network, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4')
}
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) PRIVATE.addSubnet(network, prefix, 'ipv6')

/** The eight 16-bit groups of an IPv6 address (with :: and a dotted IPv4 tail written out). */
function groupsOf (address: string): number[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address)
  const text = dotted === null
    ? address
    : address.slice(0, dotted.index) + [(Number(dotted[1]) << 8) | Number(dotted[2]), (Number(dotted[3]) << 8) | Number(dotted[4])].map((n) => n.toString(16)).join(':')
  const [head, tail] = text.split('::') as [string, string | undefined]
  const parse = (part: string | undefined): number[] => part === undefined || part === '' ? [] : part.split(':').map((g) => parseInt(g, 16))
  const [first, last] = [parse(head), parse(tail)]
  return [...first, ...Array<number>(8 - first.length - last.length).fill(0), ...last]
}

/**
 * IPv6 forms that carry an IPv4 address (mapped ::ffff:0:0/96, NAT64
 * 64:ff9b::/96, 6to4 2002::/16) are refused whole: no public metadata server is
 * named so, and each can hide 127.0.0.1 (::ffff:7f00:1). Node's BlockList
 * cannot hold them: it compares IPv4 addresses as mapped ones.
 */
function carriesIPv4 (address: string): boolean {
  const g = groupsOf(address)
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0)
  return (zeros(0, 5) && g[5] === 0xffff) || (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) || g[0] === 0x2002
}

/** Loopback, private, link-local, multicast and reserved addresses, and IPv6 forms of IPv4 ones. */
export function isPrivateAddress (address: string): boolean {
  const family = isIP(address)
  if (family === 6 && carriesIPv4(address)) return true
  return family === 0 || PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

export type GuardedFetchOptions = { allowPrivate: boolean, timeoutMs: number, maxBytes: number }

export type GuardedFetch = { getText (url: string): Promise<string>, close (): Promise<void> }

export function createGuardedFetch (o: GuardedFetchOptions): GuardedFetch {
  // Checked where the connection is made, so a name cannot resolve one way for a check and another for the connect.
  const lookup = (hostname: string, options: object, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err !== null) return callback(err, [])
      const refused = o.allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address))
      if (refused !== undefined) return callback(new Error(`${hostname} resolves to a private address (${refused.address})`), [])
      const wantsAll = (options as { all?: boolean }).all === true
      if (wantsAll) return callback(null, addresses)
      callback(null, addresses[0]!.address, addresses[0]!.family)
    })
  }
  const agent = new Agent({ connect: { lookup: lookup as never }, maxResponseSize: o.maxBytes })

  function checkUrl (url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${url.protocol} is not fetched`)
    const host = url.hostname.replace(/^\[|\]$/g, '')
    // A literal address is connected to without a lookup: check it here.
    if (!o.allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) throw new Error(`${host} is a private address`)
  }

  return {
    async getText (start: string): Promise<string> {
      const signal = AbortSignal.timeout(o.timeoutMs)
      let url = new URL(start)
      for (let hop = 0; ; hop++) {
        checkUrl(url)
        const response = await fetch(url, { dispatcher: agent, redirect: 'manual', signal, headers: { accept: 'application/json' } })
          .catch((err: Error & { cause?: Error }) => { throw new Error(err.cause?.message ?? err.message, { cause: err }) })
        const location = response.headers.get('location')
        if (response.status >= 300 && response.status < 400 && location !== null) {
          await response.body?.cancel()
          if (hop >= MAX_REDIRECTS) throw new Error('too many redirects')
          url = new URL(location, url)
          continue
        }
        if (!response.ok) {
          await response.body?.cancel()
          throw new Error(`HTTP ${response.status}`)
        }
        const declared = Number(response.headers.get('content-length') ?? 0)
        if (declared > o.maxBytes) {
          await response.body?.cancel()
          throw new Error(`the document is larger than ${o.maxBytes} bytes`)
        }
        return await response.text()
      }
    },
    close: async () => await agent.close()
  }
}
