// The transaction module: whether a transaction failed (and why), and its
// receipt's status. A hash the index does not hold (not yet sealed, or not
// of this chain) answers as Etherscan does for a pending one: no error, and
// an empty receipt status.
import { strictObject, type EtherscanAction } from './action.ts'
import { ok } from './envelope.ts'
import { readHash } from './params.ts'

const TXHASH_PARAM = { txhash: { type: 'string', description: 'A 0x-prefixed 32-byte transaction hash' } }

const getstatus: EtherscanAction = {
  summary: 'Whether a transaction failed, and its error',
  params: TXHASH_PARAM,
  required: ['txhash'],
  result: strictObject(['isError', 'errDescription']),
  async run ({ txhash }, { queries }) {
    const outcome = await queries.etherscan.findTransactionOutcome(readHash(txhash))
    const failed = outcome !== undefined && outcome.status !== 1
    // The index keeps the node's error (e.g. "execution reverted"); a failure without one is a revert.
    return ok({ isError: failed ? '1' : '0', errDescription: failed ? outcome.error ?? 'execution reverted' : '' })
  }
}

const gettxreceiptstatus: EtherscanAction = {
  summary: 'A transaction receipt\'s status: 1 success, 0 failure, empty when not sealed',
  params: TXHASH_PARAM,
  required: ['txhash'],
  result: strictObject(['status']),
  async run ({ txhash }, { queries }) {
    const outcome = await queries.etherscan.findTransactionOutcome(readHash(txhash))
    return ok({ status: outcome === undefined ? '' : String(outcome.status) })
  }
}

export const TRANSACTION_ACTIONS: Record<string, EtherscanAction> = { getstatus, gettxreceiptstatus }
