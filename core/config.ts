// The only reader of process.env. Every variable is declared here once, with
// its default and a description; docs/configuration.md is checked against this list.
import { resolve } from 'node:path'
import { homedir } from 'node:os'
import { Ajv } from 'ajv'
import { ConfigInvalidError } from './errors.ts'
import { readConfigFile } from './config-file.ts'
import { parseUnits } from 'ethers'
import { isAddressOrSubnet } from './net/subnets.ts'

export const CHAIN_ID = 793788
/** Geth's own default --maxpeers, once an instance has peers at all. */
const DEFAULT_P2P_MAXPEERS = 25

type VariableSpec = {
  type: 'string' | 'integer' | 'boolean'
  default?: string | number | boolean
  minimum?: number
  maximum?: number
  enum?: readonly string[]
  pattern?: string
  description: string
}

/** The table as written (`as const`), so that each variable's value type is read from its entry (Variables below). */
const VARIABLE_TABLE = {
  HOST: { type: 'string', default: '127.0.0.1', description: 'Address the HTTP server listens on.' },
  PORT: { type: 'integer', default: 4000, minimum: 0, maximum: 65535, description: 'HTTP port of the gateway.' },
  HTTP_REQUEST_TIMEOUT_MS: { type: 'integer', default: 30000, minimum: 100, description: 'How long a client may take to send a whole request, headers and body; a slower one gets 408 and its connection closed. A WebSocket is not limited once upgraded.' },
  HTTP_MAX_CONNECTIONS: { type: 'integer', default: 1000, minimum: 1, description: 'Most client connections (WebSockets included) open at once; further ones are closed as they come, so clients cannot take the file descriptors Geth and PostgreSQL need.' },
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: { type: 'integer', default: 100, minimum: 1, description: 'Most connections one client address (IPv6: its /64) may hold open at once; further ones are closed as they come, so one client cannot take HTTP_MAX_CONNECTIONS. Addresses in TRUST_PROXY are not counted (their clients all share them): limit those at the proxy.' },
  HTTP_HEADERS_TIMEOUT_MS: { type: 'integer', default: 5000, minimum: 100, description: 'How long a client may take from opening a connection (or from a request\'s first byte on a kept-alive one) to the end of the request\'s headers; a connection that sends nothing for this long is closed. At most HTTP_REQUEST_TIMEOUT_MS.' },
  HTTP_CACHE_ENABLED: { type: 'boolean', default: true, description: 'Keep the answers of the hot REST pages (home page, newest blocks and transactions, stats, transaction, block and address details) per indexed head, with ETag and 304 Not Modified; false reads every request from the database and sends no ETag.' },
  HTTP_CACHE_MAX_MB: { type: 'integer', default: 32, minimum: 1, maximum: 4096, description: 'Megabytes of answers the head-keyed cache holds at most; the oldest go first.' },
  DATA_DIR: { type: 'string', default: './data', description: 'Keys, genesis, Geth chain data and embedded PostgreSQL live here.' },
  DATABASE_URL: { type: 'string', pattern: '^postgres(ql)?://', description: 'External PostgreSQL; unset starts embedded PostgreSQL in DATA_DIR/postgres.' },
  DATABASE_POOL_MAX: { type: 'integer', default: 10, minimum: 1, maximum: 1000, description: 'Connections each of the gateway\'s two database pools may open (knex\'s and the prepared statements\'): an instance holds up to twice this many.' },
  LOG_LEVEL: { type: 'string', default: 'info', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], description: 'pino log level.' },
  CLIQUE_PERIOD: { type: 'integer', default: 5, minimum: 0, maximum: 3600, description: 'Seconds between clique blocks; 0 seals only when transactions are pending. Read on first start only.' },
  GENESIS_ALLOC: { type: 'string', description: 'JSON file in Geth alloc format merged into the genesis on first start.' },
  GETH_BIN: { type: 'string', description: 'Path of a Geth 1.13.x binary to use instead of finding or building one.' },
  GETH_CACHE_DIR: { type: 'string', description: 'Where a Geth built from source is cached (default ~/.cache/testnet-gateway).' },
  GETH_RPC_URL: { type: 'string', pattern: '^https?://', description: 'Use an already running node at this HTTP URL; skips the supervisor.' },
  GETH_WS_URL: { type: 'string', pattern: '^wss?://', description: 'The WebSocket endpoint of the node at GETH_RPC_URL: eth_subscribe over the gateway, and new heads without polling.' },
  GETH_GCMODE: { type: 'string', default: 'archive', enum: ['archive', 'full'], description: 'Geth --gcmode; archive keeps the state tracing needs.' },
  GETH_MAXPEERS: { type: 'integer', minimum: 0, maximum: 1000, description: 'Geth --maxpeers; default 0 (no peers), or 25 when P2P_PORT, P2P_PEERS or JOIN_URL is set. Discovery is always off.' },
  // A testnet of several machines (docs/network.md).
  P2P_PORT: { type: 'integer', minimum: 1, maximum: 65535, description: 'TCP port our Geth listens on for peers (open it to the other nodes), and that /api/v2/network publishes in its enode URL; unset, no peer can connect and none is published.' },
  P2P_EXTERNAL_IP: { type: 'string', pattern: '^[0-9A-Fa-f.:]+$', description: 'The address other nodes reach our Geth at (Geth --nat extip:<ip>), the host of the published enode URL; unset, the host the client asked /api/v2/network by.' },
  P2P_PEERS: { type: 'string', pattern: '^enode://[^,\\s]+(\\s*,\\s*enode://[^,\\s]+)*$', description: 'Comma-separated enode URLs our Geth dials and keeps as static peers (discovery stays off).' },
  JOIN_URL: { type: 'string', pattern: '^https?://', description: 'A running gateway of the network to join: on first start its /genesis.json initialises our Geth and its /api/v2/network names the peers; a data directory of another chain is refused. Our signer key is not a signer until voted in.' },
  RPC_MAX_BATCH: { type: 'integer', default: 100, minimum: 1, maximum: 1000, description: 'Largest JSON-RPC batch accepted.' },
  RPC_MAX_LOG_RANGE: { type: 'integer', default: 10000, minimum: 1, description: 'Widest eth_getLogs / eth_newFilter block range.' },
  RPC_MAX_LOG_RESULTS: { type: 'integer', default: 10000, minimum: 1, description: 'Most logs one eth_getLogs may return.' },
  RPC_MAX_BODY_BYTES: { type: 'integer', default: 5242880, minimum: 1024, description: 'Largest JSON-RPC request body.' },
  RPC_TIMEOUT_MS: { type: 'integer', default: 30000, minimum: 100, description: 'How long a request to Geth may take before -32603.' },
  RPC_TRACE_TIMEOUT_MS: { type: 'integer', default: 5000, minimum: 1, description: 'Longest a premium key\'s debug_trace* call may run in Geth (its tracer timeout; each transaction of a block trace): a shorter timeout asked is kept, a longer one capped.' },
  RPC_TRACE_MAX_BYTES: { type: 'integer', default: 16777216, minimum: 1024, description: 'Largest answer of one debug_trace* call; a larger trace answers -32005, never cut short.' },
  RPC_CACHE_ENABLED: { type: 'boolean', default: true, description: 'Keep JSON-RPC answers: those for latest until the next head is heard, those about blocks at or below the head in an LRU (docs/json-rpc.md); false sends every call to Geth.' },
  RPC_CACHE_MAX_MB: { type: 'integer', default: 64, minimum: 1, maximum: 4096, description: 'Megabytes of JSON-RPC answers kept about blocks at or below the head (least recently used go first); answers for latest may take a quarter of this again.' },
  RPC_UPSTREAMS: { type: 'string', description: 'Comma-separated JSON-RPC URLs of other nodes of this network the proxy uses while the local Geth does not answer (reads and eth_sendRawTransaction); each is checked for the chain ID and its head.' },
  RPC_UPSTREAM_MAX_LAG_BLOCKS: { type: 'integer', default: 3, minimum: 0, description: 'An upstream more blocks than this behind the best head known (the local node\'s or another upstream\'s) is not used for calls about latest.' },
  RPC_UPSTREAM_CHECK_INTERVAL_MS: { type: 'integer', default: 2000, minimum: 100, description: 'How often each of RPC_UPSTREAMS is asked its chain ID and head.' },
  RPC_WS_MAX_CONNECTIONS: { type: 'integer', default: 500, minimum: 1, description: 'JSON-RPC WebSocket connections (/ws, /rpc, /) open at once on the instance; an upgrade past it is refused with HTTP 503.' },
  RPC_WS_MAX_SUBSCRIPTIONS_PER_CONNECTION: { type: 'integer', default: 100, minimum: 1, maximum: 10000, description: 'Subscriptions one JSON-RPC WebSocket connection may hold; eth_subscribe past it answers -32005.' },
  RPC_WS_MAX_QUEUED_BYTES: { type: 'integer', default: 16777216, minimum: 1024, description: 'Bytes that may wait to be written to one JSON-RPC WebSocket client; a client further behind is disconnected with close code 1008.' },
  DEV_ACCOUNTS_FILE: { type: 'string', description: 'JSON array of private keys eth_sendTransaction may sign with; off when unset.' },
  GRAPHQL_ENABLED: { type: 'boolean', default: true, description: 'Serve the GraphQL API, its subscriptions and GraphiQL; false answers 404 there and loads nothing of GraphQL.' },
  GRAPHQL_MAX_DEPTH: { type: 'integer', default: 10, minimum: 1, maximum: 100, description: 'Deepest GraphQL selection accepted (fragments count).' },
  GRAPHQL_MAX_COMPLEXITY: { type: 'integer', default: 2500, minimum: 1, description: 'Highest GraphQL query cost accepted, counted as Blockscout counts it.' },
  GRAPHQL_SUBSCRIPTION_MAX_QUEUED: { type: 'integer', default: 1000, minimum: 1, description: 'Events a GraphQL subscription may have waiting to be sent; a subscriber further behind has its subscription ended.' },
  GRAPHQL_SUBSCRIPTION_MAX_COMPLEXITY: { type: 'integer', default: 100, minimum: 1, description: 'Highest cost of a GraphQL subscription, which runs on every event it hears (counted as GRAPHQL_MAX_COMPLEXITY is).' },
  GRAPHQL_MAX_SUBSCRIPTIONS_PER_CONNECTION: { type: 'integer', default: 20, minimum: 1, description: 'Live GraphQL subscriptions one WebSocket connection may hold; more are refused with an error message.' },
  GRAPHQL_MAX_SUBSCRIPTIONS: { type: 'integer', default: 200, minimum: 1, description: 'Live GraphQL subscriptions on the instance, all connections together; more are refused with an error message.' },
  NFT_METADATA_ENABLED: { type: 'boolean', default: true, description: 'Read an NFT instance\'s metadata (tokenURI / uri, then the document it names) when the instance is first asked for; false reads none.' },
  NFT_METADATA_IPFS_GATEWAY: { type: 'string', default: 'https://ipfs.io/ipfs/', pattern: '^https?://', description: 'HTTP gateway that ipfs:// metadata URIs are read through.' },
  NFT_METADATA_ALLOW_PRIVATE_HOSTS: { type: 'boolean', default: false, description: 'Let metadata URIs name loopback and private addresses (metadata served on the testnet\'s own network); off, they are refused.' },
  INDEXER_ENABLED: { type: 'boolean', default: true, description: 'Index on this instance when it can take the indexer lock; false never takes the lock nor writes: the instance serves reads and hears every block from the instance that indexes.' },
  INDEXER_BULK_LOAD_MIN_BLOCKS: { type: 'integer', default: 1000, minimum: 0, description: 'A backfill this many blocks behind, and behind by more than is stored, defers secondary indexes and running sums until near the head; 0 never.' },
  // Access (plugins/auth, plugins/rate-limit).
  RATE_LIMIT_ENABLED: { type: 'boolean', default: true, description: 'Limit requests per minute per client; false for a private instance (API keys sent are still checked).' },
  RATE_LIMIT_PUBLIC_PER_MIN: { type: 'integer', default: 100, minimum: 1, description: 'Requests a minute for a client without an API key, per IP address (IPv6 per /64), over every interface together.' },
  RATE_LIMIT_PREMIUM_PER_MIN: { type: 'integer', default: 1000, minimum: 1, description: 'Requests a minute for a premium API key, unless the key has its own limit.' },
  RATE_LIMIT_EXPLORER_ORIGINS: { type: 'string', pattern: '^https?://[^,\\s]+(\\s*,\\s*https?://[^,\\s]+)*$', description: 'Origins of the explorer front end (https://explorer.example): requests without a key whose Origin header is one of them are counted apart from the public budget, at RATE_LIMIT_EXPLORER_PER_MIN per IP address; unset, none.' },
  RATE_LIMIT_EXPLORER_PER_MIN: { type: 'integer', default: 600, minimum: 1, description: 'Requests a minute for the explorer front end\'s visitors (RATE_LIMIT_EXPLORER_ORIGINS), per IP address (IPv6 per /64), apart from its public budget.' },
  RPC_TRACE_WEIGHT: { type: 'integer', default: 10, minimum: 1, maximum: 1000, description: 'Requests of its budget a premium key spends on one debug_trace* call (each in a batch).' },
  REDIS_URL: { type: 'string', pattern: '^rediss?://', description: 'Redis that holds the rate-limit counters, shared by every instance; unset counts in memory.' },
  TRUST_PROXY: { type: 'string', pattern: '^[0-9A-Fa-f.:/]+(,[0-9A-Fa-f.:/]+)*$', description: 'Comma-separated addresses or CIDRs of reverse proxies whose X-Forwarded-For is believed; unset believes none.' },
  ADMIN_TOKEN: { type: 'string', pattern: '^\\S{16,}$', description: 'Bearer token of the operator: enables the admin API at /admin/api/keys and lets /metrics be read from any address (16 characters or more).' },
  CORS_ORIGINS: { type: 'string', default: '*', pattern: '^(\\*|https?://[^,\\s]+(\\s*,\\s*https?://[^,\\s]+)*)$', description: 'Origins whose pages may call the API from a browser: * for any, or a comma-separated list of origins (https://explorer.example).' },
  SOCKET_MAX_CHANNELS: { type: 'integer', default: 100, minimum: 1, maximum: 10000, description: 'Topics one client may have joined at once on the Phoenix socket (/socket/v2/websocket); a join past it is refused.' },
  SOCKET_MAX_QUEUED: { type: 'integer', default: 1000, minimum: 1, description: 'Messages the Phoenix socket may have waiting to be written to one client; a client further behind is disconnected.' },
  // Operations (issue 24): metrics and the faucet.
  METRICS_ENABLED: { type: 'boolean', default: true, description: 'Serve Prometheus metrics at GET /metrics; false answers 404 there.' },
  METRICS_ALLOW: { type: 'string', description: 'Comma-separated addresses or subnets (CIDR) that may read /metrics besides loopback.' },
  FAUCET_ENABLED: { type: 'boolean', description: 'Serve the faucet at /api/v2/faucet; defaults to true when HOST is not a loopback address (a public instance), false otherwise.' },
  FAUCET_AMOUNT: { type: 'string', default: '1', pattern: '^\\d{1,12}(\\.\\d{1,18})?$', description: 'Coins (ether units, decimals allowed) sent by one faucet drip.' },
  FAUCET_COOLDOWN_S: { type: 'integer', default: 86400, minimum: 0, description: 'Seconds an address, and a client IP (a /64 for IPv6), wait between faucet drips.' },
  // Contract verification (core/verify/).
  SOLC_CACHE_DIR: { type: 'string', description: 'Directory of soljson builds (soljson-v0.8.20+commit.a1b79de6.js, as solc-bin names them) that verification may compile with besides the solc package\'s bundled one; default ~/.cache/testnet-gateway/solc. With SOLC_DOWNLOAD (on by default), missing versions are downloaded into it.' },
  SOLC_DOWNLOAD: { type: 'boolean', default: true, description: 'Download a compiler version a verification asks for that is neither bundled nor in SOLC_CACHE_DIR into SOLC_CACHE_DIR, from SOLC_DOWNLOAD_URL, keeping it only when its keccak256 is the one list.json publishes; off, only those versions are offered.' },
  SOLC_DOWNLOAD_URL: { type: 'string', default: 'https://binaries.soliditylang.org/bin', pattern: '^https?://', description: 'Where SOLC_DOWNLOAD reads list.json and the soljson builds it names (solc-bin\'s layout).' },
  VERIFY_COMPILE_TIMEOUT_MS: { type: 'integer', default: 60000, minimum: 1, description: 'Longest one verification\'s compilation may run (in a worker thread) before it is stopped.' },
  VERIFY_COMPILE_MEMORY_MB: { type: 'integer', default: 512, minimum: 16, description: 'Heap cap of a compilation\'s worker thread (V8 old generation, MB); a run that needs more is stopped.' },
  VERIFY_MAX_BODY_BYTES: { type: 'integer', default: 20971520, minimum: 1048576, description: 'Largest verification request body sent as a multipart form (REST) or a form (the Etherscan-style POST /api), all files and fields together; a larger one answers 413 once its Content-Length says so or that much has arrived, the rest unread and the connection closed. JSON bodies stay within 1 MiB.' },
  VERIFY_MAX_SOURCES_BYTES: { type: 'integer', default: 10485760, minimum: 1024, description: 'Largest total of the sources one verification compiles (the UTF-8 bytes of every file together); more answers 413.' },
  COIN_SYMBOL: { type: 'string', default: 'ETH', pattern: '^[A-Za-z0-9]{1,16}$', description: 'The native coin\'s symbol, in the Stats API\'s titles and units.' }
} as const satisfies Record<string, VariableSpec>

/** Every environment variable the program reads, in the order docs/configuration.md lists them. */
export const VARIABLES: Readonly<Record<string, VariableSpec>> = VARIABLE_TABLE

/** The value a variable's entry gives: its enum's words, else its type's; undefined too when it has no default (unset stays unset). */
type VariableValue<S extends VariableSpec> =
  (S extends { enum: ReadonlyArray<infer W> } ? W : S['type'] extends 'boolean' ? boolean : S['type'] extends 'integer' ? number : string) |
  (S extends { default: unknown } ? never : undefined)

/** The variables once validated and defaulted, each typed from its entry in the table. */
export type Variables = { readonly [N in keyof typeof VARIABLE_TABLE]: VariableValue<typeof VARIABLE_TABLE[N]> }

export type Config = Readonly<{
  host: string
  port: number
  http: Readonly<{
    requestTimeoutMs: number
    /** The end of a request's headers is due this long after the connection opened or the request began (HTTP_HEADERS_TIMEOUT_MS). */
    headersTimeoutMs: number
    maxConnections: number
    maxConnectionsPerAddress: number
  }>
  httpCache: Readonly<{ enabled: boolean, maxBytes: number }>
  dataDir: string
  databaseUrl: string | undefined
  databasePoolMax: number
  logLevel: string
  chainId: number
  /** The few variables child processes (Geth, go, postgres) need from ours. */
  childEnv: Readonly<Record<string, string>>
  geth: Readonly<{
    bin: string | undefined
    cacheDir: string
    rpcUrl: string | undefined
    /** The external node's WebSocket (GETH_WS_URL); ignored without rpcUrl. */
    wsUrl: string | undefined
    cliquePeriod: number
    genesisAlloc: string | undefined
    gcmode: 'archive' | 'full'
    maxPeers: number
    p2pPort: number | undefined
    externalIp: string | undefined
    /** P2P_PEERS: static peers' enode URLs. */
    peers: readonly string[]
    joinUrl: string | undefined
  }>
  rpcProxy: Readonly<{
    maxBatch: number
    maxLogRange: number
    maxLogResults: number
    maxBodyBytes: number
    timeoutMs: number
    /** RPC_TRACE_TIMEOUT_MS: the cap on a trace's tracer timeout. */
    traceTimeoutMs: number
    /** RPC_TRACE_MAX_BYTES: the largest trace answer served. */
    traceMaxBytes: number
    devAccountsFile: string | undefined
    cacheEnabled: boolean
    cacheMaxBytes: number
    upstreams: readonly string[]
    upstreamMaxLagBlocks: number
    upstreamCheckIntervalMs: number
  }>
  rpcWebsocket: Readonly<{
    maxConnections: number
    maxSubscriptionsPerConnection: number
    maxQueuedBytes: number
  }>
  graphql: Readonly<{
    enabled: boolean
    maxDepth: number
    maxComplexity: number
    subscriptionMaxQueued: number
    subscriptionMaxComplexity: number
    maxSubscriptionsPerConnection: number
    maxSubscriptions: number
  }>
  indexer: Readonly<{
    /** false: an API-only instance, never the writer (INDEXER_ENABLED). */
    enabled: boolean
    bulkLoadMinBlocks: number
  }>
  socket: Readonly<{
    maxChannels: number
    maxQueued: number
  }>
  cors: Readonly<{
    /** '*' for any origin, or the origins allowed. */
    origins: '*' | readonly string[]
  }>
  nftMetadata: Readonly<{
    enabled: boolean
    ipfsGateway: string
    allowPrivateHosts: boolean
  }>
  /** Reverse proxies whose X-Forwarded-For is believed (Fastify's trustProxy); none when empty. */
  trustProxy: readonly string[]
  auth: Readonly<{
    adminToken: string | undefined
  }>
  rateLimit: Readonly<{
    enabled: boolean
    publicPerMin: number
    premiumPerMin: number
    /** RPC_TRACE_WEIGHT: what one debug_trace* call spends of a premium key's budget. */
    traceWeight: number
    /** Origins (scheme://host[:port]) whose keyless requests get the explorer's budget; none when empty. */
    explorerOrigins: readonly string[]
    explorerPerMin: number
    redisUrl: string | undefined
  }>
  metrics: Readonly<{ enabled: boolean, allow: readonly string[] }>
  faucet: Readonly<{ enabled: boolean, amountWei: bigint, cooldownS: number }>
  stats: Readonly<{
    coinSymbol: string
  }>
  verify: Readonly<{
    solcCacheDir: string
    compileTimeoutMs: number
    compileMemoryMb: number
    /** VERIFY_MAX_BODY_BYTES: a multipart or form body's bytes, all parts together. */
    maxBodyBytes: number
    /** VERIFY_MAX_SOURCES_BYTES: the UTF-8 bytes of one verification's sources together. */
    maxSourcesBytes: number
    /** Where missing compiler versions are downloaded from; undefined when SOLC_DOWNLOAD is off. */
    solcDownloadUrl: string | undefined
  }>
}>

// Passed through to child processes only: Go's build needs its cache and proxy settings.
const CHILD_ENV = ['PATH', 'HOME', 'TMPDIR', 'GOPATH', 'GOCACHE', 'GOMODCACHE', 'GOPROXY', 'GOFLAGS', 'GOTOOLCHAIN', 'GOSUMDB', 'GONOSUMDB', 'GOPRIVATE']

type Env = Record<string, string | undefined>

const ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true })
const validateVariables = ajv.compile({
  type: 'object',
  properties: Object.fromEntries(Object.entries(VARIABLES).map(([name, spec]) => {
    const { description: _description, ...schema } = spec
    return [name, schema]
  }))
})

/** Settings DATA_DIR/config.json may hold: all but DATA_DIR, which locates it. */
const FILE_VARIABLES = new Set(Object.keys(VARIABLES).filter((name) => name !== 'DATA_DIR'))

/** The variables from DATA_DIR/config.json and the environment, validated against the table, with its defaults. */
export function readVariables (env: Env): Variables {
  // An empty value means "unset", as in most shells' `VAR= cmd`.
  const fromEnv: Env = Object.fromEntries(Object.keys(VARIABLES)
    .filter((name) => env[name] !== undefined && env[name] !== '')
    .map((name) => [name, env[name]]))
  // The instance's config file first; the environment overrides it.
  const fromFile = readConfigFile(resolve(fromEnv.DATA_DIR ?? VARIABLE_TABLE.DATA_DIR.default), FILE_VARIABLES)
  const data: Record<string, unknown> = { ...fromFile, ...fromEnv }
  if (!validateVariables(data)) {
    const reasons = (validateVariables.errors ?? []).map((e) => {
      const name = e.instancePath.slice(1)
      return `${name} ${e.message} (got ${JSON.stringify(fromEnv[name] ?? fromFile[name])})`
    })
    throw new ConfigInvalidError(reasons.join('; '))
  }
  // Validated against the table with its defaults applied: each value now has its entry's type.
  return data as Variables
}

/** Validates the environment once and returns a frozen, typed Config. */
export function loadConfig (env: Env = process.env): Config {
  const v = readVariables(env)
  const cors: Config['cors'] = { origins: v.CORS_ORIGINS === '*' ? '*' : String(v.CORS_ORIGINS).split(',').map((origin) => origin.trim()) }
  return deepFreeze({
    host: v.HOST,
    port: v.PORT,
    http: {
      requestTimeoutMs: v.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: Math.min(v.HTTP_HEADERS_TIMEOUT_MS, v.HTTP_REQUEST_TIMEOUT_MS),
      maxConnections: v.HTTP_MAX_CONNECTIONS,
      maxConnectionsPerAddress: v.HTTP_MAX_CONNECTIONS_PER_ADDRESS
    },
    httpCache: { enabled: v.HTTP_CACHE_ENABLED, maxBytes: v.HTTP_CACHE_MAX_MB * 1024 * 1024 },
    dataDir: resolve(v.DATA_DIR),
    databaseUrl: v.DATABASE_URL,
    databasePoolMax: v.DATABASE_POOL_MAX,
    logLevel: v.LOG_LEVEL,
    chainId: CHAIN_ID,
    childEnv: Object.fromEntries(CHILD_ENV.filter((name) => env[name] !== undefined).map((name) => [name, env[name]!])),
    geth: {
      bin: v.GETH_BIN,
      cacheDir: resolve(v.GETH_CACHE_DIR ?? resolve(env.XDG_CACHE_HOME ?? resolve(homedir(), '.cache'), 'testnet-gateway')),
      rpcUrl: v.GETH_RPC_URL,
      wsUrl: v.GETH_WS_URL,
      cliquePeriod: v.CLIQUE_PERIOD,
      genesisAlloc: v.GENESIS_ALLOC,
      gcmode: v.GETH_GCMODE,
      maxPeers: v.GETH_MAXPEERS ?? (v.P2P_PORT !== undefined || v.P2P_PEERS !== undefined || v.JOIN_URL !== undefined ? DEFAULT_P2P_MAXPEERS : 0),
      p2pPort: v.P2P_PORT,
      externalIp: v.P2P_EXTERNAL_IP,
      peers: (v.P2P_PEERS ?? '').split(',').map((peer) => peer.trim()).filter((peer) => peer !== ''),
      joinUrl: v.JOIN_URL
    },
    rpcProxy: {
      maxBatch: v.RPC_MAX_BATCH,
      maxLogRange: v.RPC_MAX_LOG_RANGE,
      maxLogResults: v.RPC_MAX_LOG_RESULTS,
      maxBodyBytes: v.RPC_MAX_BODY_BYTES,
      timeoutMs: v.RPC_TIMEOUT_MS,
      traceTimeoutMs: v.RPC_TRACE_TIMEOUT_MS,
      traceMaxBytes: v.RPC_TRACE_MAX_BYTES,
      devAccountsFile: v.DEV_ACCOUNTS_FILE,
      cacheEnabled: v.RPC_CACHE_ENABLED,
      cacheMaxBytes: v.RPC_CACHE_MAX_MB * 1024 * 1024,
      upstreams: readUpstreams(v.RPC_UPSTREAMS),
      upstreamMaxLagBlocks: v.RPC_UPSTREAM_MAX_LAG_BLOCKS,
      upstreamCheckIntervalMs: v.RPC_UPSTREAM_CHECK_INTERVAL_MS
    },
    rpcWebsocket: {
      maxConnections: v.RPC_WS_MAX_CONNECTIONS,
      maxSubscriptionsPerConnection: v.RPC_WS_MAX_SUBSCRIPTIONS_PER_CONNECTION,
      maxQueuedBytes: v.RPC_WS_MAX_QUEUED_BYTES
    },
    graphql: {
      enabled: v.GRAPHQL_ENABLED,
      maxDepth: v.GRAPHQL_MAX_DEPTH,
      maxComplexity: v.GRAPHQL_MAX_COMPLEXITY,
      subscriptionMaxQueued: v.GRAPHQL_SUBSCRIPTION_MAX_QUEUED,
      subscriptionMaxComplexity: v.GRAPHQL_SUBSCRIPTION_MAX_COMPLEXITY,
      maxSubscriptionsPerConnection: v.GRAPHQL_MAX_SUBSCRIPTIONS_PER_CONNECTION,
      maxSubscriptions: v.GRAPHQL_MAX_SUBSCRIPTIONS
    },
    indexer: {
      enabled: v.INDEXER_ENABLED,
      bulkLoadMinBlocks: v.INDEXER_BULK_LOAD_MIN_BLOCKS
    },
    socket: {
      maxChannels: v.SOCKET_MAX_CHANNELS,
      maxQueued: v.SOCKET_MAX_QUEUED
    },
    cors,
    nftMetadata: {
      enabled: v.NFT_METADATA_ENABLED,
      ipfsGateway: v.NFT_METADATA_IPFS_GATEWAY,
      allowPrivateHosts: v.NFT_METADATA_ALLOW_PRIVATE_HOSTS
    },
    trustProxy: readTrustProxy(v.TRUST_PROXY),
    auth: {
      adminToken: v.ADMIN_TOKEN
    },
    rateLimit: {
      enabled: v.RATE_LIMIT_ENABLED,
      publicPerMin: v.RATE_LIMIT_PUBLIC_PER_MIN,
      premiumPerMin: v.RATE_LIMIT_PREMIUM_PER_MIN,
      traceWeight: v.RPC_TRACE_WEIGHT,
      explorerOrigins: readExplorerOrigins(v.RATE_LIMIT_EXPLORER_ORIGINS, cors),
      explorerPerMin: v.RATE_LIMIT_EXPLORER_PER_MIN,
      redisUrl: v.REDIS_URL
    },
    metrics: { enabled: v.METRICS_ENABLED, allow: readMetricsAllow(v.METRICS_ALLOW) },
    faucet: {
      // A public instance is one people reach from elsewhere, and they come for test coins; on loopback it is a developer's own.
      enabled: v.FAUCET_ENABLED ?? !isLoopbackHost(v.HOST),
      amountWei: parseUnits(v.FAUCET_AMOUNT, 18),
      cooldownS: v.FAUCET_COOLDOWN_S
    },
    stats: {
      coinSymbol: v.COIN_SYMBOL
    },
    verify: {
      solcCacheDir: resolve(v.SOLC_CACHE_DIR ?? resolve(env.XDG_CACHE_HOME ?? resolve(homedir(), '.cache'), 'testnet-gateway', 'solc')),
      compileTimeoutMs: v.VERIFY_COMPILE_TIMEOUT_MS,
      compileMemoryMb: v.VERIFY_COMPILE_MEMORY_MB,
      maxBodyBytes: v.VERIFY_MAX_BODY_BYTES,
      maxSourcesBytes: v.VERIFY_MAX_SOURCES_BYTES,
      solcDownloadUrl: v.SOLC_DOWNLOAD ? v.SOLC_DOWNLOAD_URL : undefined
    }
  })
}

/**
 * RATE_LIMIT_EXPLORER_ORIGINS as browsers send Origin (scheme://host[:port],
 * lower case, no path). Each must be one CORS_ORIGINS lets call: a browser
 * refused by CORS would never spend the budget meant for it.
 */
function readExplorerOrigins (value: string | undefined, cors: Config['cors']): string[] {
  if (value === undefined) return []
  const origins = value.split(',').map((entry) => new URL(entry.trim()).origin)
  const allowed = cors.origins === '*' ? undefined : new Set(cors.origins.map((entry) => new URL(entry).origin))
  const refused = allowed === undefined ? [] : origins.filter((origin) => !allowed.has(origin))
  if (refused.length > 0) throw new ConfigInvalidError(`RATE_LIMIT_EXPLORER_ORIGINS names ${refused.join(', ')}, which CORS_ORIGINS does not allow`)
  return origins
}

/** TRUST_PROXY's addresses and CIDRs, each checked: a typo must not start a gateway that believes the wrong peers. */
function readTrustProxy (value: string | undefined): string[] {
  if (value === undefined) return []
  const entries = value.split(',')
  for (const entry of entries) {
    if (!isAddressOrSubnet(entry)) throw new ConfigInvalidError(`TRUST_PROXY ${JSON.stringify(entry)} is not an address or CIDR`)
  }
  return entries
}

/** RPC_UPSTREAMS' URLs, each an http(s) URL: a typo must fail at boot, not on the day the local node goes down. */
function readUpstreams (value: string | undefined): string[] {
  const entries = (value ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '')
  const bad = entries.filter((e) => !URL.canParse(e) || !/^https?:$/.test(new URL(e).protocol))
  if (bad.length > 0) throw new ConfigInvalidError(`RPC_UPSTREAMS lists ${bad.map((e) => JSON.stringify(e)).join(', ')}, which are not http(s) URLs`)
  return entries
}

function readMetricsAllow (value: string | undefined): string[] {
  const entries = (value ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '')
  const bad = entries.filter((e) => !isAddressOrSubnet(e))
  if (bad.length > 0) throw new ConfigInvalidError(`METRICS_ALLOW lists ${bad.map((e) => JSON.stringify(e)).join(', ')}, which are not addresses or subnets`)
  return entries
}

/** localhost, 127.0.0.0/8 and ::1: nobody else can reach the server. */
export function isLoopbackHost (host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)
}

function deepFreeze<T extends object> (value: T): T {
  for (const child of Object.values(value)) {
    if (child !== null && typeof child === 'object') deepFreeze(child)
  }
  return Object.freeze(value)
}
