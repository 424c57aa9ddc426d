// Decoding and interpretation: the decoder (core/decode) the REST reads decode
// inputs and logs with, and the interpreter (core/interpreter) behind the
// summary and interpretation routes, both over one ABI source. Nothing is
// verified on this branch: every decoding falls back to the bundled selector
// table until contract verification's store is plugged in as the ABI source.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createDecoder, NO_VERIFIED_ABIS, type AbiSource, type Decoder } from '../../core/decode/index.ts'
import { createInterpreter, type Interpreter } from '../../core/interpreter/index.ts'
import { VARIABLES } from '../../core/config.ts'

declare module 'fastify' {
  interface FastifyInstance {
    decoder: Decoder
    interpreter: Interpreter
  }
}

export type InterpreterPluginOptions = { coinSymbol: string }

/** bench:rest and bench:graphql mount routes without this plugin or the app's config: the coin's default symbol. */
const DEFAULT_COIN_SYMBOL = String(VARIABLES.COIN_SYMBOL!.default)

/**
 * The app's decoder and interpreter, or, where routes are mounted without
 * this plugin (the benchmarks, the readme test), ones over no verified ABI.
 */
export function interpreterOf (app: FastifyInstance): { decoder: Decoder, interpreter: Interpreter } {
  if (app.hasDecorator('interpreter')) return { decoder: app.decoder, interpreter: app.interpreter }
  const decoder = createDecoder({ abiSource: NO_VERIFIED_ABIS })
  return { decoder, interpreter: createInterpreter({ db: app.db.knex, decoder, coinSymbol: DEFAULT_COIN_SYMBOL }) }
}

async function interpreter (app: FastifyInstance, options: InterpreterPluginOptions): Promise<void> {
  // Contract verification's ABI store goes here: abiFor(address) answers a verified contract's name and ABI.
  const abiSource: AbiSource = NO_VERIFIED_ABIS
  const decoder = createDecoder({ abiSource })
  app.decorate('decoder', decoder)
  app.decorate('interpreter', createInterpreter({ db: app.db.knex, decoder, coinSymbol: options.coinSymbol }))
}

export default fp(interpreter, { name: 'interpreter', fastify: '5.x', dependencies: ['db'] })
