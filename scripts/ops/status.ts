// `npm run ops -- status [--json]`: what an operator checks first. Everything
// comes from the gateway running on DATA_DIR (its endpoints.json): the node
// over its RPC, the indexer through /health, the database's size, and what it
// serves. With none running it says so plainly and exits 3, showing what
// DATA_DIR holds and how the next start is configured.
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import knex from 'knex'
import type { Config } from '../../core/config.ts'
import { readEndpoints, type Endpoints } from '../../core/endpoints.ts'
import { createRpcClient } from '../../core/rpc/client.ts'
import { PACKAGE_VERSION } from '../../core/version.ts'
import { readSigner } from '../../geth/keys.ts'
import { fetchHealth, probeGraphql } from './gateway-probe.ts'

export const EXIT_NOT_RUNNING = 3
const RPC_TIMEOUT_MS = 5000

export type StatusReport = {
  running: boolean
  data_dir: string
  version: string
  pid?: number
  chain_id?: number | null
  head?: { number: number, hash: string, age_s: number } | null
  /** This instance's signer key (DATA_DIR's keystore), authorized or not. */
  signer?: string | null
  /** Running only: whether the chain's current signers include it (a joined instance's is, once voted in). */
  authorized_signer?: boolean | null
  /** Running only: how many signers the chain has. */
  signers?: number | null
  sealing?: boolean | null
  geth_version?: string | null
  geth_restarts?: number | null
  indexer?: { role: string, enabled?: boolean, head: number | null, lag_blocks: number | null } | null
  database_bytes?: number | null
  graphql: { configured: boolean, serving?: boolean | null, restart_needed?: boolean }
  metrics: boolean
  faucet: boolean
  rate_limits: RateLimitsReport
  urls?: Record<string, string>
  /** Stopped instances only: whether DATA_DIR holds a chain. */
  initialised?: boolean
}

type RateLimitsReport = { enabled: boolean, public_per_min: number, premium_per_min: number, shared_through_redis: boolean }

/** As this instance's configuration sets them (the running gateway reads the same environment and DATA_DIR/config.json). */
function rateLimitsOf (config: Config): RateLimitsReport {
  const { enabled, publicPerMin, premiumPerMin, redisUrl } = config.rateLimit
  return { enabled, public_per_min: publicPerMin, premium_per_min: premiumPerMin, shared_through_redis: redisUrl !== undefined }
}

export async function runStatus (config: Config, json: boolean, out: (line: string) => void): Promise<number> {
  const gateway = await readEndpoints(config.dataDir)
  const report = gateway === undefined ? await stoppedReport(config) : await runningReport(config, gateway)
  if (json) out(JSON.stringify(report, null, 2))
  else for (const line of formatStatus(report)) out(line)
  return report.running ? 0 : EXIT_NOT_RUNNING
}

async function runningReport (config: Config, gateway: Endpoints): Promise<StatusReport> {
  const rpc = createRpcClient({ url: gateway.geth_rpc_url, timeoutMs: RPC_TIMEOUT_MS })
  const db = knex({ client: 'pg', connection: gateway.database_url, pool: { min: 0, max: 1 } })
  try {
    const [answers, health, serving, size, signer] = await Promise.all([
      rpc.batchAnswers([
        { method: 'eth_chainId', params: [] },
        { method: 'eth_getBlockByNumber', params: ['latest', false] },
        { method: 'eth_mining', params: [] },
        { method: 'clique_getSigners', params: ['latest'] },
        { method: 'web3_clientVersion', params: [] }
      ]).catch(() => []),
      gateway.gateway_url === undefined ? undefined : fetchHealth(gateway.gateway_url),
      gateway.gateway_url === undefined ? undefined : probeGraphql(gateway.gateway_url),
      db.raw('select pg_database_size(current_database()) as bytes').then((r) => Number(r.rows[0].bytes), () => null),
      readSigner(config.dataDir)
    ])
    const result = <T>(i: number): T | null => (answers[i]?.result as T | undefined) ?? null
    const block = result<{ number: string, hash: string, timestamp: string }>(1)
    // Geth names the signers in lower case, the keystore checksummed.
    const signers = result<string[]>(3)?.map((address) => address.toLowerCase()) ?? null
    return {
      running: true,
      data_dir: config.dataDir,
      version: PACKAGE_VERSION,
      pid: gateway.pid,
      chain_id: result<string>(0) === null ? null : Number(result<string>(0)),
      head: block === null ? null : { number: Number(block.number), hash: block.hash, age_s: Math.max(0, Math.round(Date.now() / 1000 - Number(block.timestamp))) },
      signer: signer ?? null,
      authorized_signer: signer === undefined || signers === null ? null : signers.includes(signer.toLowerCase()),
      signers: signers?.length ?? null,
      sealing: result<boolean>(2),
      geth_version: result<string>(4),
      geth_restarts: health?.geth.restarts ?? null,
      indexer: health?.indexer ?? null,
      database_bytes: size,
      graphql: { configured: config.graphql.enabled, serving: serving ?? null, restart_needed: serving !== undefined && serving !== config.graphql.enabled },
      metrics: config.metrics.enabled,
      faucet: config.faucet.enabled,
      rate_limits: rateLimitsOf(config),
      urls: gateway.gateway_url === undefined ? {} : servedUrls(gateway.gateway_url, serving ?? config.graphql.enabled, config)
    }
  } finally {
    await rpc.close()
    await db.destroy()
  }
}

async function stoppedReport (config: Config): Promise<StatusReport> {
  const initialised = await stat(join(config.dataDir, 'geth', 'geth', 'chaindata')).then(() => true, () => false)
  const genesis = await readFile(join(config.dataDir, 'genesis.json'), 'utf8').then((text) => JSON.parse(text) as { config?: { chainId?: number } }, () => undefined)
  return {
    running: false,
    data_dir: config.dataDir,
    version: PACKAGE_VERSION,
    initialised,
    chain_id: genesis?.config?.chainId ?? null,
    signer: await readSigner(config.dataDir) ?? null,
    graphql: { configured: config.graphql.enabled },
    metrics: config.metrics.enabled,
    faucet: config.faucet.enabled,
    rate_limits: rateLimitsOf(config)
  }
}

function servedUrls (base: string, graphql: boolean, config: Config): Record<string, string> {
  return {
    json_rpc: `${base}/rpc`,
    rest: `${base}/api/v2`,
    ...(graphql ? { graphql: `${base}/api/v2/graphql` } : {}),
    health: `${base}/health`,
    api_docs: `${base}/api-docs`,
    ...(config.metrics.enabled ? { metrics: `${base}/metrics` } : {}),
    ...(config.faucet.enabled ? { faucet: `${base}/api/v2/faucet` } : {})
  }
}

/** "reader (indexer disabled)" on an API-only instance: a reader that will never take over. */
function indexerRole (indexer: NonNullable<StatusReport['indexer']>): string {
  return indexer.enabled === false ? `${indexer.role} (indexer disabled)` : indexer.role
}

/** This instance's signer and whether it may seal: a joined instance's key seals only once the signers vote it in. */
function signerRole (r: StatusReport): string {
  if (r.signer === null || r.signer === undefined) return 'none in DATA_DIR/keystore'
  if (r.authorized_signer === true) return `${r.signer} (authorized, one of the chain's ${r.signers} signer${r.signers === 1 ? '' : 's'})`
  if (r.authorized_signer === false) return `${r.signer} (not authorized: the chain's signers vote it in with npm run ops -- signers propose ${r.signer})`
  return `${r.signer} (authorized unknown: Geth did not answer)`
}

function formatStatus (r: StatusReport): string[] {
  const onOff = (on: boolean | null | undefined): string => on === true ? 'on' : on === false ? 'off' : 'unknown'
  const limits = r.rate_limits.enabled
    ? `on: ${r.rate_limits.public_per_min} a minute public, ${r.rate_limits.premium_per_min} premium, counted ${r.rate_limits.shared_through_redis ? 'in Redis (shared)' : 'in memory'}`
    : 'off'
  if (!r.running) {
    return [
      `no gateway is running on ${r.data_dir}`,
      `  chain:    ${r.initialised === true ? `initialised (chain ID ${r.chain_id ?? 'unknown'}, signer ${r.signer ?? 'unknown'})` : 'none yet: the first start creates it'}`,
      `  graphql:  ${onOff(r.graphql.configured)} at the next start`,
      `  metrics:  ${onOff(r.metrics)}; faucet: ${onOff(r.faucet)}`,
      `  rate limits: ${limits}`,
      `  version:  testnet-gateway ${r.version}`
    ]
  }
  const graphql = r.graphql.restart_needed === true
    ? `${onOff(r.graphql.serving)} now, ${onOff(r.graphql.configured)} configured: restart needed`
    : onOff(r.graphql.serving ?? r.graphql.configured)
  return [
    `gateway running on ${r.data_dir} (pid ${r.pid})`,
    `  chain ID: ${r.chain_id ?? 'unknown'}`,
    `  head:     ${r.head === null || r.head === undefined ? 'unknown (Geth did not answer)' : `${r.head.number} ${r.head.hash}, ${r.head.age_s} s old`}`,
    `  signer:   ${signerRole(r)}; sealing: ${r.sealing === true ? 'yes' : r.sealing === false ? 'no' : 'unknown'}; Geth restarts: ${r.geth_restarts ?? 'unknown'}`,
    `  indexer:  ${r.indexer === null || r.indexer === undefined ? 'unknown' : `${indexerRole(r.indexer)}, head ${r.indexer.head ?? 'none'}, ${r.indexer.lag_blocks ?? '?'} blocks behind`}`,
    `  database: ${r.database_bytes === null || r.database_bytes === undefined ? 'unknown' : `${(r.database_bytes / 1024 / 1024).toFixed(1)} MB`}`,
    `  graphql:  ${graphql}`,
    `  metrics:  ${onOff(r.metrics)}; faucet: ${onOff(r.faucet)}`,
    `  rate limits: ${limits}`,
    ...Object.entries(r.urls ?? {}).map(([name, url]) => `  ${`${name}:`.padEnd(9)} ${url}`),
    `  version:  testnet-gateway ${r.version}, ${r.geth_version ?? 'Geth unknown'}`
  ]
}
