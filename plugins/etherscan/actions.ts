// The dispatch table of Blockscout's Etherscan-style API: module, then action,
// each with the query parameters it reads (a JSON schema: validated per action
// and merged into /api's documented querystring) and its handler. A new action
// is one more entry here.
import type { Knex } from 'knex'
import { readBlockCountdown } from '../../core/queries/block-countdown.ts'
import { notOk, ok, type Envelope } from './envelope.ts'
import { contract } from './contract.ts'

export type ActionContext = { db: Knex }

export type EtherscanAction = {
  summary: string
  /** Query parameters besides module and action, as JSON-schema properties. */
  params: Record<string, { type: string, description: string }>
  /** Parameters that must be present: Blockscout's message is "Query parameter 'x' is required". */
  required: string[]
  /** The `result` of a success, for the documented response. */
  result: object
  run: (params: Record<string, string>, context: ActionContext) => Promise<Envelope>
}

const BLOCK_NUMBER = /^[0-9]+$/

const getblockcountdown: EtherscanAction = {
  summary: 'Blocks and estimated seconds until a block is sealed',
  params: { blockno: { type: 'string', description: 'The block number to count down to' } },
  required: ['blockno'],
  result: {
    type: ['object', 'null'],
    properties: {
      CurrentBlock: { type: 'string' },
      CountdownBlock: { type: 'string' },
      RemainingBlock: { type: 'string' },
      EstimateTimeInSec: { type: 'string', description: 'Seconds at the average block time of the newest 100 blocks, to a tenth' }
    }
  },
  async run ({ blockno }, { db }) {
    if (!BLOCK_NUMBER.test(blockno!)) return notOk('Invalid block number')
    const countdown = await readBlockCountdown(db, BigInt(blockno!))
    if (countdown.kind === 'indexing') return notOk('Chain is indexing now, try again later')
    if (countdown.kind === 'passed') return notOk('Error! Block number already pass')
    return ok({
      CurrentBlock: String(countdown.currentBlock),
      CountdownBlock: countdown.countdownBlock.toString(),
      RemainingBlock: countdown.remainingBlocks.toString(),
      EstimateTimeInSec: countdown.estimateTimeS.toFixed(1)
    })
  }
}

export const ETHERSCAN_MODULES: Record<string, Record<string, EtherscanAction>> = {
  block: { getblockcountdown },
  contract
}
