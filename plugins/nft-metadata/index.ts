// NFT metadata: the reader the REST instance routes use (core/nft-metadata/)
// and, on the instance that indexes, the fetcher that reads newly minted ids
// in the background. Switched off (NFT_METADATA_ENABLED=false), the reader
// reads nothing and no fetcher runs.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createNftMetadataReader, type NftMetadataOptions, type NftMetadataReader } from '../../core/nft-metadata/index.ts'
import { createNftMetadataFetcher } from '../../core/nft-metadata/fetcher.ts'
import type { BlockRows } from '../../core/indexer/types.ts'

declare module 'fastify' {
  interface FastifyInstance {
    nftMetadata: NftMetadataReader
  }
}

async function nftMetadata (app: FastifyInstance, options: NftMetadataOptions): Promise<void> {
  const log = app.log.child({ name: 'nft-metadata' })
  const reader = createNftMetadataReader({ db: app.db.knex, rpc: app.geth.rpc, log, options })
  app.decorate('nftMetadata', reader)
  app.addHook('onClose', async () => await reader.close())
  if (!options.enabled) return
  const fetcher = createNftMetadataFetcher({ db: app.db.knex, reader, log })
  // Readers of the index get the writer's blocks too: only the writer reads metadata.
  const onBlocks = (batches: BlockRows[]): void => {
    const status = app.indexer.status()
    if (status.role === 'writer') fetcher.onBlocks(batches, (status.nodeHead ?? 0) - (status.indexedHead ?? 0))
  }
  app.indexer.on('blocks', onBlocks)
  app.addHook('preClose', async () => {
    app.indexer.off('blocks', onBlocks)
    await fetcher.close()
  })
}

export default fp(nftMetadata, { name: 'nft-metadata', fastify: '5.x', dependencies: ['db', 'geth', 'indexer'] })
