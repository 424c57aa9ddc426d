// What another node needs to join this chain: the genesis our Geth was
// initialised with, byte for byte (GET /genesis.json), and its enode URL
// (GET /api/v2/network). A plain `geth init genesis.json && geth --bootnodes
// <enode>` syncs from them, and so does `JOIN_URL=<this gateway> npm start`.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { readFile } from 'node:fs/promises'
import { RouteNotFoundError } from '../../core/errors.ts'
import { enodeUrl } from '../../geth/p2p.ts'

export type NetworkPluginOptions = { chainId: number }

const networkBody = {
  type: 'object',
  required: ['chain_id', 'genesis_hash', 'enodes', 'signer'],
  properties: {
    chain_id: { type: 'integer' },
    genesis_hash: { type: 'string', pattern: '^0x[0-9a-f]{64}$', description: 'Hash of block 0: a node initialised with /genesis.json has the same' },
    enodes: {
      type: 'array',
      items: { type: 'string', pattern: '^enode://' },
      description: 'Our Geth\'s enode URL (static peer or --bootnodes for another node); empty when its p2p port is off (no P2P_PORT)'
    },
    signer: { type: ['string', 'null'], description: 'This instance\'s clique signer key (a signer only if the chain\'s signers say so: clique_getSigners); null on an external node' }
  }
}

const notPublished = (request: FastifyRequest): Error => new RouteNotFoundError(request.method, request.url.split('?')[0]!)

async function network (app: FastifyInstance, options: NetworkPluginOptions): Promise<void> {
  let genesisHash: string | undefined

  app.get('/genesis.json', {
    schema: {
      tags: ['network'],
      summary: 'The genesis this instance\'s Geth was initialised with, byte for byte (404 on an instance using GETH_RPC_URL)',
      response: { 200: { type: 'string', description: 'Geth genesis JSON' } }
    }
  }, async (request, reply) => {
    const file = app.geth.published?.genesisFile
    if (file === undefined) throw notPublished(request)
    // A Buffer passes the response schema's serialiser untouched: the bytes geth init read.
    const bytes = await readFile(file).catch(() => { throw notPublished(request) })
    return await reply.type('application/json').send(bytes)
  })

  app.get('/api/v2/network', {
    schema: {
      tags: ['network'],
      summary: 'What a node needs to join this chain: chain ID, genesis hash, our Geth\'s enode URLs',
      response: { 200: networkBody }
    }
  }, async (request) => {
    genesisHash ??= (await app.geth.rpc.call<{ hash: string }>('eth_getBlockByNumber', ['0x0', false])).hash.toLowerCase()
    const p2p = app.geth.published?.p2p
    // The host other nodes reach us at: P2P_EXTERNAL_IP, else the one this client used to reach the gateway.
    const host = p2p?.externalIp ?? request.hostname
    return {
      chain_id: options.chainId,
      genesis_hash: genesisHash,
      enodes: p2p !== undefined ? [enodeUrl(p2p.nodeId, host, p2p.port)] : [],
      signer: app.geth.keys?.signer ?? null
    }
  })
}

export default fp(network, { name: 'network', fastify: '5.x', dependencies: ['geth'] })
