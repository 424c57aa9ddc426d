import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { GethNode } from '../../geth/node.ts'

declare module 'fastify' {
  interface FastifyInstance {
    geth: GethNode
  }
}

/** The node, found or built and started before the app was built (plugins/resources.ts); stopped with the app. */
export type GethPluginOptions = { node: GethNode }

async function geth (app: FastifyInstance, { node }: GethPluginOptions): Promise<void> {
  app.addHook('onClose', async () => await node.stop())
  app.decorate('geth', node)
}

export default fp(geth, { name: 'geth', fastify: '5.x', dependencies: ['db'] })
