// `npm run ops -- explorer-env [--api-url URL] [--app-url URL]`: prints the
// environment file for Blockscout's front end image pointed at this instance
// (core/explorer-env.ts). Needs neither Geth nor the database.
import type { Config } from '../../core/config.ts'
import { explorerEnv } from '../../core/explorer-env.ts'

/** Where Blockscout's front end image listens by default. */
const DEFAULT_APP_URL = 'http://localhost:3000'

/** The instance as a browser on this machine reaches it: HOST and PORT, a wildcard HOST read as loopback. */
export function instanceUrl (config: Config): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`
}

export function runExplorerEnv (config: Config, options: { apiUrl: string | undefined, appUrl: string | undefined }, out: (line: string) => void): number {
  const lines = explorerEnv({
    apiUrl: new URL(options.apiUrl ?? instanceUrl(config)),
    appUrl: new URL(options.appUrl ?? DEFAULT_APP_URL),
    chainId: config.chainId
  })
  for (const line of lines) out(line)
  return 0
}
