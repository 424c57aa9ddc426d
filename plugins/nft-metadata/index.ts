// NFT metadata: the reader the REST instance routes use (core/nft-metadata/)
// and, on the instance that indexes, the fetcher that reads newly minted ids
// in the background. Switched off (NFT_METADATA_ENABLED=false), the reader
// reads nothing and no fetcher runs.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createNftMetadataReader, type NftMetadataOptions, type NftMetadataReader } from '../../core/nft-metadata/index.ts'
import { createNftMetadataFetcher } from '../../core/nft-metadata/fetcher.ts'

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
  // Every instance hears every block: only the one that stored them reads metadata.
  const stopFetching = app.indexer.events.subscribe((event) => {
    if (event.type !== 'block' || !event.storedHere) return
    const status = app.indexer.status()
    fetcher.onBlocks(event.blocks, (status.nodeHead ?? 0) - (status.indexedHead ?? 0))
  })
  app.addHook('preClose', async () => {
    stopFetching()
    await fetcher.close()
  })
}

export default fp(nftMetadata, { name: 'nft-metadata', fastify: '5.x', dependencies: ['db', 'geth', 'indexer'] })
