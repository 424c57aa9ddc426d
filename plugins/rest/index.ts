import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance } from 'fastify'
import { mainPageRoutes } from './main-page.ts'
import { blockRoutes } from './blocks.ts'
import { transactionRoutes } from './transactions.ts'
import { addressRoutes } from './addresses.ts'
import { tokenTransferRoutes } from './token-transfers.ts'
import { internalTransactionRoutes } from './internal-transactions.ts'
import { logRoutes } from './logs.ts'
import { transactionTraceRoutes } from './transaction-trace.ts'
import { transactionSummaryRoutes } from './transaction-summary.ts'
import { addressListRoutes } from './address-lists.ts'
import { addressTokenRoutes } from './address-tokens.ts'
import { addressNftRoutes } from './address-nfts.ts'
import { withdrawalRoutes } from './withdrawals.ts'
import { tokenRoutes } from './tokens.ts'
import { tokenInstanceRoutes } from './token-instances.ts'
import { smartContractRoutes } from './smart-contracts.ts'
import { verificationRoutes } from './smart-contract-verification.ts'
import { blockscoutHealthRoutes } from './health.ts'
import { searchRoutes } from './search.ts'
import { statsRoutes } from './stats.ts'
import { configRoutes } from './config.ts'
import { advancedFilterRoutes } from './advanced-filters.ts'
import { useBlockscoutValidation, type BlockscoutError } from './validation.ts'
import { decorateConfirmationDuration } from './confirmation-duration.ts'
import { RpcResponseError, RpcUnavailableError } from '../../core/rpc/client.ts'
import { isDatabaseUnavailable } from '../../core/db/unavailable.ts'
import { DatabaseUnavailableError, NodeUnavailableError, UnknownApiActionError } from '../../core/errors.ts'
import { interpretationRoutes } from './interpretations.ts'

/** The Blockscout-compatible REST API under /api/v2, reading what the indexer wrote. */
async function rest (app: FastifyInstance): Promise<void> {
  await app.register(restV2, { prefix: '/api/v2' })
  await app.register(blockscoutHealthRoutes)
}

/**
 * The /api/v2 routes alone, over the decorators of the plugins `rest` depends
 * on: the benchmarks mount them on a database filled without a node, with
 * stand-ins for those (scripts/bench/stand-ins.ts).
 */
export async function restV2 (app: FastifyInstance): Promise<void> {
  const { nftMetadata, verifier, decoder, interpreter, addressNames: names } = app
  await app.register(async (scope) => {
    useBlockscoutValidation(scope)
    decorateConfirmationDuration(scope)
    // Coded errors answer in Blockscout's body, {"message": ...}; a failed validation in its {"errors": [...]}.
    scope.setErrorHandler(async (error: FastifyError & { blockscoutErrors?: BlockscoutError[] }, request, reply) => {
      if (error.validation !== undefined) return await reply.code(422).send({ errors: error.blockscoutErrors ?? [] })
      if ((error.statusCode ?? 500) < 500) return await reply.code(error.statusCode!).send({ message: error.message })
      // Our own 502s and 503s (no compiler to spare or to download) say why and when to come back.
      // A node's error carries a numeric JSON-RPC code: only our own codes are text.
      if (typeof error.code === 'string' && error.code.startsWith('GW_ERR_') && (error.statusCode === 502 || error.statusCode === 503)) {
        request.log.warn({ err: error, reqId: request.id }, 'REST request could not be served now')
        return await reply.code(error.statusCode).send({ message: error.message })
      }
      // Reads that need the node (state changes) wait out a Geth restart: say so, not 500.
      if (error instanceof RpcUnavailableError || error instanceof RpcResponseError) {
        request.log.warn({ err: error, reqId: request.id }, 'REST request needed the node, which did not answer')
        return await reply.code(503).send({ message: new NodeUnavailableError().message })
      }
      if (isDatabaseUnavailable(error)) {
        request.log.warn({ err: error.message, reqId: request.id }, 'REST request needed the database, which is unavailable')
        return await reply.code(503).send({ message: new DatabaseUnavailableError().message })
      }
      request.log.error({ err: error, reqId: request.id }, 'REST request failed')
      return await reply.code(500).send({ message: 'Internal server error' })
    })
    // As Blockscout: a path under /api/v2 that names no action is a 400.
    scope.setNotFoundHandler(async () => { throw new UnknownApiActionError() })
    await scope.register(mainPageRoutes)
    await scope.register(blockRoutes, { decoder, names })
    await scope.register(transactionRoutes, { decoder, names })
    await scope.register(addressRoutes, { decoder, names, proxies: verifier.proxies })
    await scope.register(tokenTransferRoutes, { decoder, names })
    await scope.register(internalTransactionRoutes, { names })
    await scope.register(logRoutes, { decoder, names })
    await scope.register(transactionTraceRoutes, { names })
    await scope.register(transactionSummaryRoutes, { interpreter })
    await scope.register(interpretationRoutes, { interpreter })
    await scope.register(addressListRoutes, { names })
    await scope.register(addressTokenRoutes)
    await scope.register(addressNftRoutes)
    await scope.register(withdrawalRoutes)
    await scope.register(tokenRoutes, { names })
    await scope.register(tokenInstanceRoutes, { decoder, nftMetadata, names })
    await scope.register(smartContractRoutes, { verifier, names })
    await scope.register(verificationRoutes, { verifier })
    await scope.register(searchRoutes)
    await scope.register(statsRoutes)
    await scope.register(configRoutes)
    await scope.register(advancedFilterRoutes, { names })
  })
}

export default fp(rest, { name: 'rest', fastify: '5.x', dependencies: ['db', 'geth', 'indexer', 'nft-metadata', 'verify', 'interpreter', 'address-names'] })
