// Blockscout's /api/v2/config routes: what an explorer front end asks the
// backend about itself before it draws its menus.
import { PACKAGE_VERSION } from '../../core/version.ts'
import { query, type RestApp } from './schemas.ts'

const nullableString = { type: ['string', 'null'] } as const

/**
 * What this backend's index holds, in Blockscout's fetcher names: blocks and
 * internal transactions are indexed; clique pays no block rewards; the mempool
 * is not indexed (pending lists are empty). NFT metadata is read as ids are
 * minted or asked for (core/nft-metadata/), but no fetcher goes back over
 * failed reads or cleans kept documents, which is what these two flags name.
 */
const INDEXER = {
  indexer_enabled: true,
  block_reward_fetcher_enabled: false,
  internal_transactions_fetcher_enabled: true,
  pending_transactions_fetcher_enabled: false,
  token_instance_retry_fetcher_enabled: false,
  token_instance_sanitize_fetcher_enabled: false
} as const

export async function configRoutes (app: RestApp): Promise<void> {
  app.get('/config/backend-version', {
    schema: { tags: ['config'], summary: 'The backend version', querystring: query(), response: { 200: { type: 'object', properties: { backend_version: nullableString } } } }
  }, async () => ({ backend_version: `v${PACKAGE_VERSION}` }))
  app.get('/config/backend', {
    schema: {
      tags: ['config'],
      summary: 'The chain type (null: a plain EVM chain) and OpenAPI flavour',
      querystring: query(),
      response: { 200: { type: 'object', properties: { chain_type: nullableString, openapi_spec_folder_name: nullableString } } }
    }
  }, async () => ({ chain_type: null, openapi_spec_folder_name: null }))
  app.get('/config/indexer', {
    schema: {
      tags: ['config'],
      summary: 'Which parts of the chain the index holds',
      querystring: query(),
      response: { 200: { type: 'object', properties: Object.fromEntries(Object.keys(INDEXER).map((k) => [k, { type: 'boolean' }])) } }
    }
  }, async () => INDEXER)
}
