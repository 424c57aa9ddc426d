// Decoding and interpretation: the decoder (core/decode) the REST and GraphQL
// reads decode inputs and logs with, over the ABI source. Nothing is verified
// on this branch yet: every decoding falls back to the bundled selector table
// until contract verification's store is plugged in as the ABI source here.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createDecoder, NO_VERIFIED_ABIS, type AbiSource, type Decoder } from '../../core/decode/index.ts'

declare module 'fastify' {
  interface FastifyInstance {
    decoder: Decoder
  }
}

async function interpreter (app: FastifyInstance): Promise<void> {
  // Verification's ABI store goes here: an AbiSource answers abiFor(address).
  const abiSource: AbiSource = NO_VERIFIED_ABIS
  app.decorate('decoder', createDecoder({ abiSource }))
}

export default fp(interpreter, { name: 'interpreter', fastify: '5.x', dependencies: ['db'] })
