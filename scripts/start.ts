// The process entry of `npm start`: PostgreSQL (embedded or external), then
// Geth (found, or built on a first start, then supervised), then the gateway
// on HOST:PORT. SIGINT/SIGTERM close it all, during preparation too.
import type { FastifyInstance } from 'fastify'
import { loadConfig, type Config } from '../core/config.ts'
import { createLogger } from '../core/logger.ts'
import { buildApp } from '../plugins/index.ts'
import { openResources } from '../plugins/resources.ts'
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

// Preparation (a first Geth build takes minutes) listens for signals too: a
// SIGINT then ends the build and closes whatever was opened, and exits 0.
const preparing = new AbortController()
let app: FastifyInstance | undefined
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
    if (app === undefined) {
      preparing.abort()
      return
    }
    removeEndpoints(config.dataDir).catch(() => {}).then(() => app!.close()).then(() => {
      log.info('stopped')
      process.exit(0)
    }, (err: unknown) => {
      log.error({ err }, 'shutdown failed')
      process.exit(1)
    })
  })
}

try {
  const resources = await openResources(config, { log, signal: preparing.signal })
  const built = await buildApp(config, { logger: log, resources })
  // A signal while the app was being built found nothing to close yet.
  if (preparing.signal.aborted) {
    await built.close()
    throw preparing.signal.reason
  }
  app = built
  await app.listen({ host: config.host, port: config.port })
  // Geth and embedded PostgreSQL listen on random ports: `npm run ops` finds them here.
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${(app.server.address() as { port: number }).port}`
  await writeEndpoints(config.dataDir, { pid: process.pid, geth_rpc_url: app.geth.rpc.url, ...(app.geth.wsUrl === undefined ? {} : { geth_ws_url: app.geth.wsUrl }), database_url: app.db.url, gateway_url: base })
  log.info({
    json_rpc: [`${base}/`, `${base}/rpc`],
    health: `${base}/health`,
    api_docs: `${base}/api-docs`,
    chain_id: config.chainId,
    data_dir: config.dataDir,
    faucet: app.geth.keys?.faucet.address
  }, `testnet-gateway serving JSON-RPC at ${base}/rpc`)
} catch (err) {
  if (preparing.signal.aborted) {
    log.info('stopped before serving')
    process.exit(0)
  }
  log.fatal({ err }, (err as Error).message)
  // Give pino's stream a moment, then leave: half-started children are stopped by execa's cleanup.
  setTimeout(() => process.exit(1), 100)
}
