// `npm run ops -- explorer-env [--api-url URL] [--app-url URL]`: prints the
// environment file for Blockscout's front end image pointed at this instance
// (core/explorer-env.ts). Needs neither Geth nor the database: a gateway
// running on DATA_DIR is asked over HTTP where it serves (endpoints.json: its
// port may be another than PORT says, e.g. one it was started with) and for
// a transaction GraphiQL's default query can show.
import type { Config } from '../../core/config.ts'
import { readEndpoints } from '../../core/endpoints.ts'
import { explorerEnv } from '../../core/explorer-env.ts'
import { probeGraphql } from './gateway-probe.ts'

/** Where Blockscout's front end image listens by default. */
const DEFAULT_APP_URL = 'http://localhost:3000'
const PROBE_TIMEOUT_MS = 5000
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]'])

/** A URL as a browser on this machine reaches it: a wildcard host read as loopback. */
export function browserUrl (url: string): string {
  const parsed = new URL(url)
  if (WILDCARD_HOSTS.has(parsed.hostname)) parsed.hostname = '127.0.0.1'
  return parsed.origin
}

/** The instance as a browser on this machine reaches it: HOST and PORT, a wildcard HOST read as loopback. */
export function instanceUrl (config: Config): string {
  return browserUrl(`http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`)
}

/** The newest indexed transaction's hash, as the running gateway lists it; undefined with none or no answer. */
async function fetchNewestTransaction (gatewayUrl: string): Promise<string | undefined> {
  try {
    const response = await fetch(`${gatewayUrl}/api/v2/main-page/transactions`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
    if (response.status !== 200) return undefined
    const [newest] = await response.json() as Array<{ hash?: unknown }>
    return typeof newest?.hash === 'string' ? newest.hash : undefined
  } catch {
    return undefined
  }
}

export async function runExplorerEnv (config: Config, options: { apiUrl: string | undefined, appUrl: string | undefined }, out: (line: string) => void): Promise<number> {
  const running = (await readEndpoints(config.dataDir))?.gateway_url
  const local = running === undefined ? undefined : browserUrl(running)
  const [graphql, transaction] = local === undefined ? [undefined, undefined] : await Promise.all([probeGraphql(local), fetchNewestTransaction(local)])
  const lines = explorerEnv({
    apiUrl: new URL(options.apiUrl ?? local ?? instanceUrl(config)),
    appUrl: new URL(options.appUrl ?? DEFAULT_APP_URL),
    chainId: config.chainId,
    graphiqlTransaction: graphql === false ? 'none' : transaction
  })
  for (const line of lines) out(line)
  return 0
}
