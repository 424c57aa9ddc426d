// Stand-ins for the plugins the read routes depend on, for benchmarks that
// mount those routes (plugins/rest's restV2, plugins/graphql, plugins/stats)
// over a database filled without a chain: no node to read, no indexer (it
// would roll the database back to a node's), nothing heard from other
// processes. Each is registered under the name of the plugin it stands for
// and decorates what that plugin decorates, so the plugins mounted after it
// find their fastify-plugin dependencies met, as test/readme.test.ts does. The
// plugins themselves no longer branch for a missing dependency (issue 37).
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { VARIABLES } from '../../core/config.ts'
import { createAddressNameReader } from '../../core/address-names/index.ts'
import type { ApiKeyLookup } from '../../core/api-keys/lookup.ts'
import { createDecoder, NO_VERIFIED_ABIS } from '../../core/decode/index.ts'
import { createInterpreter } from '../../core/interpreter/index.ts'
import { createNftMetadataReader } from '../../core/nft-metadata/index.ts'
import { createVerifier } from '../../core/verify/index.ts'

/** The coin's default symbol: the benchmarks run without the app's config. */
const DEFAULT_COIN_SYMBOL = String(VARIABLES.COIN_SYMBOL!.default)
/** The verifier stand-in compiles nothing: a verification would wait for this long at most. */
const COMPILE_TIMEOUT_MS = 60_000
const COMPILE_MEMORY_MB = 512

/**
 * What plugins/nft-metadata, plugins/verify, plugins/interpreter and
 * plugins/address-names decorate, over `app.db` and `app.queries` (decorated
 * before): no tokenURI is read (instances show what was kept), the verifier
 * has no node (no proxy is read) and does not hear others' verifications, the
 * decoder knows no verified ABI, and names are read but changes elsewhere show
 * only when a name expires.
 */
export async function registerReadStandIns (app: FastifyInstance): Promise<void> {
  await app.register(fp(async (scope: FastifyInstance) => {
    const reader = createNftMetadataReader({ db: scope.db.knex, rpc: undefined, log: scope.log, options: { enabled: false, ipfsGateway: 'https://ipfs.io/ipfs/', allowPrivateHosts: false } })
    scope.decorate('nftMetadata', reader)
    scope.addHook('onClose', async () => await reader.close())
  }, { name: 'nft-metadata' }))
  await app.register(fp(async (scope: FastifyInstance) => {
    const verifier = createVerifier({
      db: scope.db.knex,
      queries: scope.queries,
      rpc: undefined,
      log: scope.log,
      compiler: { cacheDir: undefined, timeoutMs: COMPILE_TIMEOUT_MS, memoryMb: COMPILE_MEMORY_MB },
      databaseUrl: scope.db.url,
      // The defaults of VERIFY_MAX_BODY_BYTES and VERIFY_MAX_SOURCES_BYTES.
      limits: { maxBodyBytes: Number(VARIABLES.VERIFY_MAX_BODY_BYTES!.default), maxSourcesBytes: Number(VARIABLES.VERIFY_MAX_SOURCES_BYTES!.default) }
    })
    scope.decorate('verifier', verifier)
    scope.addHook('onClose', async () => await verifier.close())
  }, { name: 'verify' }))
  await app.register(fp(async (scope: FastifyInstance) => {
    const decoder = createDecoder({ abiSource: NO_VERIFIED_ABIS })
    scope.decorate('decoder', decoder)
    scope.decorate('interpreter', createInterpreter({ db: scope.db.knex, queries: scope.queries, decoder, coinSymbol: DEFAULT_COIN_SYMBOL }))
  }, { name: 'interpreter' }))
  await app.register(fp(async (scope: FastifyInstance) => {
    const names = await createAddressNameReader({ queries: scope.queries })
    scope.decorate('addressNames', names)
    scope.addHook('onClose', async () => await names.close())
  }, { name: 'address-names' }))
}

/**
 * What plugins/auth and plugins/rate-limit decorate, for a benchmark that
 * measures the routes without the access layer: no key is checked or watched,
 * and every subscription and message is within budget.
 */
export async function registerOpenAccessStandIns (app: FastifyInstance): Promise<void> {
  const lookup = { watch: () => () => {} } as unknown as ApiKeyLookup
  await app.register(fp(async (scope: FastifyInstance) => {
    scope.decorate('apiKeys', { lookup } as unknown as FastifyInstance['apiKeys'])
    scope.decorateRequest('apiKey', null)
  }, { name: 'auth' }))
  await app.register(fp(async (scope: FastifyInstance) => {
    scope.decorate('accessBudget', { chargeSubscription: async () => true } as unknown as FastifyInstance['accessBudget'])
  }, { name: 'rate-limit' }))
}
