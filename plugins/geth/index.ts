import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../core/config.ts'
import { bindDatabaseToChain } from '../../core/db/index.ts'
import { createGethNode, type GethNode } from '../../geth/node.ts'

declare module 'fastify' {
  interface FastifyInstance {
    geth: GethNode
  }
}

export type GethPluginOptions = { config: Config }

/** Starts (or connects to) the node before the routes that need it, and stops it last. */
async function geth (app: FastifyInstance, { config }: GethPluginOptions): Promise<void> {
  const node = await createGethNode({ config, log: app.log.child({ name: 'geth' }) })
  await node.start()
  try {
    const genesis = await node.rpc.call<{ hash: string }>('eth_getBlockByNumber', ['0x0', false])
    await bindDatabaseToChain(app.db.knex, config.chainId, genesis.hash)
  } catch (err) {
    await node.stop()
    throw err
  }
  app.addHook('onClose', async () => await node.stop())
  app.decorate('geth', node)
}

export default fp(geth, { name: 'geth', fastify: '5.x', dependencies: ['db'] })
