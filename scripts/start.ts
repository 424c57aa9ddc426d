// The process entry of `npm start`: PostgreSQL (embedded or external), then
// Geth (supervised), then the gateway on HOST:PORT. SIGINT/SIGTERM close it all.
import { loadConfig, type Config } from '../core/config.ts'
import { createLogger } from '../core/logger.ts'
import { buildApp } from '../plugins/index.ts'
import { removeEndpoints, writeEndpoints } from '../core/endpoints.ts'

const SHUTDOWN_GRACE_MS = 30_000

let config: Config
try {
  config = loadConfig()
} catch (err) {
  console.error((err as Error).message)
  process.exit(1)
}
const log = createLogger({ level: config.logLevel })

try {
  const app = await buildApp(config, { logger: log })
  await app.listen({ host: config.host, port: config.port })
  // Geth and embedded PostgreSQL listen on random ports: `npm run ops` finds them here.
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${(app.server.address() as { port: number }).port}`
  await writeEndpoints(config.dataDir, { pid: process.pid, geth_rpc_url: app.geth.rpc.url, database_url: app.db.url, gateway_url: base })
  log.info({
    json_rpc: [`${base}/`, `${base}/rpc`],
    health: `${base}/health`,
    api_docs: `${base}/api-docs`,
    chain_id: config.chainId,
    data_dir: config.dataDir,
    faucet: app.geth.keys?.faucet.address
  }, `testnet-gateway serving JSON-RPC at ${base}/rpc`)

  let closing = false
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (closing) return
      closing = true
      log.info({ signal }, 'shutting down')
      const timer = setTimeout(() => {
        log.error('shutdown took too long; exiting')
        process.exit(1)
      }, SHUTDOWN_GRACE_MS)
      timer.unref()
      removeEndpoints(config.dataDir).catch(() => {}).then(() => app.close()).then(() => {
        log.info('stopped')
        process.exit(0)
      }, (err: unknown) => {
        log.error({ err }, 'shutdown failed')
        process.exit(1)
      })
    })
  }
} catch (err) {
  log.fatal({ err }, (err as Error).message)
  // Give pino's stream a moment, then leave: half-started children are stopped by execa's cleanup.
  setTimeout(() => process.exit(1), 100)
}
