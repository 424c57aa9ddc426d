// The environment file Blockscout's front end image (configured only through
// NEXT_PUBLIC_* variables) needs to show this chain from this gateway: the
// chain's parameters, where the API, its WebSocket and the JSON-RPC are, and
// where the front end itself is served (it builds its own links from that),
// and the features it has to be told about: transaction summaries, GraphiQL's
// default transaction, no ads.

export type ExplorerEnvOptions = {
  /** The gateway as browsers reach it (http://host:port, or behind a proxy https://api.example). */
  apiUrl: URL
  /** The front end as browsers reach it. */
  appUrl: URL
  chainId: number
  /**
   * GraphiQL's default query asks for this transaction: one of this chain's
   * (the front end's default is another chain's, which the query does not
   * find); `none` when the gateway serves no GraphQL (the page off);
   * undefined when none is known yet.
   */
  graphiqlTransaction?: string
}

/** The name the front end shows for the chain and its coin: a clique testnet's ether. */
const NETWORK_NAME = 'Testnet Gateway'
const NETWORK_SHORT_NAME = 'Testnet'
const CURRENCY = { name: 'Ether', symbol: 'ETH', decimals: 18 }

const defaultPort = (url: URL): string => url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80'
const basePath = (url: URL): string => url.pathname.replace(/\/+$/, '')

/** NAME=value lines, with comments, ready for `docker run --env-file`. */
export function explorerEnv ({ apiUrl, appUrl, chainId, graphiqlTransaction }: ExplorerEnvOptions): string[] {
  const api = apiUrl.href.replace(/\/+$/, '')
  const path = basePath(apiUrl)
  return [
    '# Blockscout front end (ghcr.io/blockscout/frontend) for this gateway: docker run --env-file <this file> -p 3000:3000 ghcr.io/blockscout/frontend',
    `# On the gateway, RATE_LIMIT_EXPLORER_ORIGINS=${appUrl.origin} gives the front end's visitors a budget of their own (docs/explorer.md)`,
    '# Where the front end is served',
    `NEXT_PUBLIC_APP_PROTOCOL=${appUrl.protocol.slice(0, -1)}`,
    `NEXT_PUBLIC_APP_HOST=${appUrl.hostname}`,
    `NEXT_PUBLIC_APP_PORT=${defaultPort(appUrl)}`,
    '# The chain',
    `NEXT_PUBLIC_NETWORK_NAME=${NETWORK_NAME}`,
    `NEXT_PUBLIC_NETWORK_SHORT_NAME=${NETWORK_SHORT_NAME}`,
    `NEXT_PUBLIC_NETWORK_ID=${chainId}`,
    `NEXT_PUBLIC_NETWORK_RPC_URL=${api}/rpc`,
    `NEXT_PUBLIC_NETWORK_CURRENCY_NAME=${CURRENCY.name}`,
    `NEXT_PUBLIC_NETWORK_CURRENCY_SYMBOL=${CURRENCY.symbol}`,
    `NEXT_PUBLIC_NETWORK_CURRENCY_DECIMALS=${CURRENCY.decimals}`,
    '# Clique: blocks are sealed by signers (validated), not mined',
    'NEXT_PUBLIC_NETWORK_VERIFICATION_TYPE=validation',
    'NEXT_PUBLIC_IS_TESTNET=true',
    '# The gateway: REST under /api/v2, Etherscan-style /api, the socket at /socket/v2/websocket',
    `NEXT_PUBLIC_API_PROTOCOL=${apiUrl.protocol.slice(0, -1)}`,
    `NEXT_PUBLIC_API_HOST=${apiUrl.hostname}`,
    `NEXT_PUBLIC_API_PORT=${defaultPort(apiUrl)}`,
    ...(path === '' ? [] : [`NEXT_PUBLIC_API_BASE_PATH=${path}`]),
    `NEXT_PUBLIC_API_WEBSOCKET_PROTOCOL=${apiUrl.protocol === 'https:' ? 'wss' : 'ws'}`,
    `NEXT_PUBLIC_API_SPEC_URL=${api}/api/v2/openapi`,
    '# No price feed: the transactions chart only',
    "NEXT_PUBLIC_HOMEPAGE_CHARTS=['daily_txs']",
    '# The Stats API (Blockscout\'s stats service) is served by the gateway under /stats',
    `NEXT_PUBLIC_STATS_API_HOST=${apiUrl.origin}`,
    `NEXT_PUBLIC_STATS_API_BASE_PATH=${path}/stats`,
    '# Transaction summaries from the gateway (/api/v2/transactions/{hash}/summary); off unless named',
    'NEXT_PUBLIC_TRANSACTION_INTERPRETATION_PROVIDER=blockscout',
    '# No third-party ads (the image loads banner and text ads unless told none)',
    'NEXT_PUBLIC_AD_BANNER_PROVIDER=none',
    'NEXT_PUBLIC_AD_TEXT_PROVIDER=none',
    ...(graphiqlTransaction === undefined
      ? ['# NEXT_PUBLIC_GRAPHIQL_TRANSACTION: no transaction indexed yet (or no gateway running on DATA_DIR); run explorer-env again once there is one, or GraphiQL\'s default query asks for another chain\'s']
      : ['# GraphiQL\'s default query: a transaction of this chain (none: the gateway serves no GraphQL)', `NEXT_PUBLIC_GRAPHIQL_TRANSACTION=${graphiqlTransaction}`])
  ]
}
