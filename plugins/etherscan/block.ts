// The block module: the countdown to a future block, the block sealed
// closest to a time, and a block's reward.
import { strictObject, type EtherscanAction } from './action.ts'
import { notOk, ok, type Envelope } from './envelope.ts'
import { NotOkError, readBlockNumber } from './params.ts'

const BLOCK_NUMBER = /^[0-9]+$/
/** 9999-12-31T23:59:59Z: later times read as this, inside what PostgreSQL's to_timestamp takes. */
const MAX_EPOCH_S = 253_402_300_799

/**
 * The countdown's errors keep Blockscout's form, the reason as the message
 * and a null result: Blockscout's front end, the caller of this action (a
 * future block's page), goes to the block's page on a null result and would
 * otherwise show an empty countdown for a block already sealed.
 */
const countdownError = (message: string): Envelope => ({ status: '0', message, result: null })

const getblockcountdown: EtherscanAction = {
  summary: 'Blocks and estimated seconds until a block is sealed',
  params: { blockno: { type: 'string', description: 'The block number to count down to' } },
  required: ['blockno'],
  result: strictObject(['CurrentBlock', 'CountdownBlock', 'RemainingBlock', 'EstimateTimeInSec'], {
    EstimateTimeInSec: { type: 'string', description: 'Seconds at the average block time of the newest 100 blocks, to a tenth' }
  }),
  async run ({ blockno }, { queries }) {
    if (!BLOCK_NUMBER.test(blockno!)) return countdownError('Invalid block number')
    const countdown = await queries.readBlockCountdown(BigInt(blockno!))
    if (countdown.kind === 'indexing') return countdownError('Chain is indexing now, try again later')
    if (countdown.kind === 'passed') return countdownError('Error! Block number already pass')
    return ok({
      CurrentBlock: String(countdown.currentBlock),
      CountdownBlock: countdown.countdownBlock.toString(),
      RemainingBlock: countdown.remainingBlocks.toString(),
      EstimateTimeInSec: countdown.estimateTimeS.toFixed(1)
    })
  }
}

const getblocknumberbytime: EtherscanAction = {
  summary: 'The number of the block sealed closest to a time',
  params: {
    timestamp: { type: 'string', description: 'Seconds since 1970-01-01 UTC' },
    closest: { type: 'string', description: 'before (the newest block at or before the time, the default) or after (the oldest at or after it)' }
  },
  required: ['timestamp'],
  result: { type: 'string', description: 'A block number' },
  async run ({ timestamp, closest = 'before' }, { queries }) {
    const epochS = Math.min(readBlockNumber(timestamp, 'timestamp', -1), MAX_EPOCH_S)
    if (epochS < 0) throw new NotOkError('Invalid timestamp')
    if (closest !== 'before' && closest !== 'after') throw new NotOkError('Invalid closest, it must be before or after')
    const number = await queries.etherscan.findBlockNumberByTime({ epochS, closest })
    return number === undefined ? notOk('Error! No closest block found') : ok(number)
  }
}

const getblockreward: EtherscanAction = {
  summary: 'A block\'s sealer (the clique signer) and the fees it earned',
  params: { blockno: { type: 'string', description: 'A block number' } },
  required: ['blockno'],
  result: strictObject(['blockNumber', 'timeStamp', 'blockMiner', 'blockReward', 'uncles', 'uncleInclusionReward'], { uncles: { type: 'array', maxItems: 0 } }),
  async run ({ blockno }, { queries }) {
    const number = readBlockNumber(blockno, 'block number', -1)
    if (number < 0) throw new NotOkError('Invalid block number')
    const reward = await queries.etherscan.readBlockReward(number)
    if (reward === undefined) return notOk('Block does not exist')
    // Clique has no uncles.
    return ok({ ...reward, uncles: [], uncleInclusionReward: '0' })
  }
}

export const BLOCK_ACTIONS: Record<string, EtherscanAction> = { getblockcountdown, getblocknumberbytime, getblockreward }
