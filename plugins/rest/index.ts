import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
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
import { useBlockscoutValidation } from './validation.ts'
import { decorateConfirmationDuration } from './confirmation-duration.ts'
import { RpcResponseError, RpcUnavailableError } from '../../core/rpc/client.ts'
import { NodeUnavailableError, UnknownApiActionError } from '../../core/errors.ts'
import { sendError } from '../send-error.ts'
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
    // Errors answer in Blockscout's body, {"message": ...}; a failed validation in its {"errors": [...]}.
    // Reads that need the node (state changes, a trace) wait out a Geth restart: 503, not 500.
    scope.setErrorHandler(async (error, request, reply) => await sendError(request, reply, 'blockscout', error, {
      answerAs: error instanceof RpcUnavailableError || error instanceof RpcResponseError ? new NodeUnavailableError() : undefined
    }))
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
