// Decoding and interpretation: the decoder (core/decode) the REST reads decode
// inputs and logs with, and the interpreter (core/interpreter) behind the
// summary and interpretation routes, both over one ABI source: contract
// verification's store (core/verify), with the bundled selector table where
// nothing is verified.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createDecoder, type Decoder } from '../../core/decode/index.ts'
import { createInterpreter, type Interpreter } from '../../core/interpreter/index.ts'
import { createVerifiedAbiSource } from '../../core/verify/abi-source.ts'

declare module 'fastify' {
  interface FastifyInstance {
    decoder: Decoder
    interpreter: Interpreter
  }
}

export type InterpreterPluginOptions = { coinSymbol: string }

async function interpreter (app: FastifyInstance, options: InterpreterPluginOptions): Promise<void> {
  const verified = createVerifiedAbiSource({ db: app.db.knex, proxies: app.verifier.proxies })
  const decoder = createDecoder({ abiSource: verified })
  const interpreter = createInterpreter({ db: app.db.knex, queries: app.queries, decoder, coinSymbol: options.coinSymbol, rpc: app.geth.rpc })
  app.decorate('decoder', decoder)
  app.decorate('interpreter', interpreter)
  // A verified contract may be named in any cached summary, also as a proxy's implementation or a twin: all of them are
  // read again (the cache is shared: the instance that verified makes them stale for all).
  // Awaited by the verification (core/verify): a summary asked after its answer is written anew.
  const stop = app.verifier.subscribe(async (event) => {
    if (event.status !== 'success') return
    // Empties the decoder and the ABI source at once, then bumps the generation.
    await interpreter.invalidateAll().catch((err: unknown) => app.log.warn({ err, address: event.address }, 'dropping cached interpretations after a verification failed'))
  })
  // A verification on any instance: what this one decoded and named may have changed.
  const stopHearing = app.verifier.subscribeStored(() => { decoder.clear() })
  app.addHook('onClose', async () => { stop(); stopHearing() })
}

export default fp(interpreter, { name: 'interpreter', fastify: '5.x', dependencies: ['db', 'geth', 'verify'] })
