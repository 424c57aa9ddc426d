// The gastracker module: gasoracle's suggested prices in gwei, as Etherscan
// models them since EIP-1559 (the next block's base fee plus a slow, average
// and fast priority fee: the Stats API's percentiles of the tips paid in the
// newest blocks), and gasestimate's seconds until a price is included.
import { strictObject, type EtherscanAction } from './action.ts'
import { notOk, ok } from './envelope.ts'
import { NotOkError } from './params.ts'

const WEI_PER_GWEI = 10n ** 9n
/** EIP-1559: an empty block lowers the base fee by at most 1/8; below 8 wei the step rounds to nothing. */
const BASE_FEE_FALL_NUMERATOR = 7n
const BASE_FEE_FALL_DENOMINATOR = 8n
const MIN_FALLING_BASE_FEE = 8n
const DIGITS = /^[0-9]{1,78}$/

/** Wei as gwei, Etherscan's unit here: a decimal without trailing zeros ("1.5", "0.000000007", "30"). */
export function toGwei (wei: bigint): string {
  const fraction = (wei % WEI_PER_GWEI).toString().padStart(9, '0').replace(/0+$/, '')
  return fraction === '' ? String(wei / WEI_PER_GWEI) : `${wei / WEI_PER_GWEI}.${fraction}`
}

/** Blocks until a base fee of `baseFee` has fallen to `price`, blocks being empty meanwhile; undefined: never. */
export function blocksUntilBaseFee (baseFee: bigint, price: bigint): number | undefined {
  let blocks = 1
  for (let fee = baseFee; fee > price; blocks++) {
    if (fee < MIN_FALLING_BASE_FEE) return undefined
    fee = fee * BASE_FEE_FALL_NUMERATOR / BASE_FEE_FALL_DENOMINATOR
  }
  return blocks
}

const gasoracle: EtherscanAction = {
  summary: 'Suggested gas prices in gwei (the next base fee plus a slow, average and fast tip) and the newest blocks\' gas used ratios',
  params: {},
  required: [],
  result: strictObject(['LastBlock', 'SafeGasPrice', 'ProposeGasPrice', 'FastGasPrice', 'suggestBaseFee', 'gasUsedRatio']),
  async run (_params, { queries }) {
    const [use, stats] = await Promise.all([queries.etherscan.readGasUse(), queries.stats.readChainStats()])
    if (use.lastBlock === null) return notOk('Chain is indexing now, try again later')
    const baseFee = use.nextBaseFee ?? 0n
    const [slow, average, fast] = (stats.gasPrices?.priorityFees ?? ['0', '0', '0']).map(BigInt) as [bigint, bigint, bigint]
    return ok({
      LastBlock: String(use.lastBlock),
      SafeGasPrice: toGwei(baseFee + slow),
      ProposeGasPrice: toGwei(baseFee + average),
      FastGasPrice: toGwei(baseFee + fast),
      suggestBaseFee: toGwei(baseFee),
      gasUsedRatio: use.gasUsedRatios.map(String).join(',')
    })
  }
}

const gasestimate: EtherscanAction = {
  summary: 'Seconds until a transaction paying this gas price (wei) is sealed, at the newest blocks\' pace',
  params: { gasprice: { type: 'string', description: 'The price per gas in wei' } },
  required: ['gasprice'],
  result: { type: 'string', description: 'Seconds' },
  async run ({ gasprice }, { queries }) {
    if (!DIGITS.test(gasprice!)) throw new NotOkError('Invalid gasprice')
    const [use, pace] = await Promise.all([queries.etherscan.readGasUse(), queries.readBlockPace()])
    if (use.lastBlock === null || pace.blockTimeMs === null) return notOk('Chain is indexing now, try again later')
    // A price at or over the next base fee is sealed in the next block; a lower one once empty blocks have lowered the fee to it.
    const blocks = blocksUntilBaseFee(use.nextBaseFee ?? 0n, BigInt(gasprice!))
    if (blocks === undefined) return notOk('Error! The gas price is below what the base fee can fall to')
    return ok(String(Math.round(blocks * pace.blockTimeMs / 1000)))
  }
}

export const GASTRACKER_ACTIONS: Record<string, EtherscanAction> = { gasoracle, gasestimate }
