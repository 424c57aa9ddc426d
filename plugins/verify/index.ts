// Contract verification (core/verify/): the verifier the REST and
// Etherscan-style routes share, with its compiler pool and queued jobs, and
// hearing the verifications every instance on the database stores.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../core/config.ts'
import { createVerifier, type Verifier } from '../../core/verify/index.ts'

declare module 'fastify' {
  interface FastifyInstance {
    verifier: Verifier
  }
}

async function verify (app: FastifyInstance, options: Config['verify']): Promise<void> {
  const verifier = createVerifier({
    db: app.db.knex,
    queries: app.queries,
    rpc: app.geth.rpc,
    log: app.log.child({ name: 'verify' }),
    databaseUrl: app.db.url,
    limits: { maxBodyBytes: options.maxBodyBytes, maxSourcesBytes: options.maxSourcesBytes },
    observe: (result) => app.metrics.verifications.inc({ result }),
    compiler: {
      cacheDir: options.solcCacheDir,
      timeoutMs: options.compileTimeoutMs,
      memoryMb: options.compileMemoryMb,
      download: options.solcDownloadUrl === undefined ? undefined : { baseUrl: options.solcDownloadUrl }
    }
  })
  app.decorate('verifier', verifier)
  app.addHook('onClose', async () => await verifier.close())
  await verifier.listen()
}

export default fp(verify, { name: 'verify', fastify: '5.x', dependencies: ['db', 'geth', 'metrics'] })
