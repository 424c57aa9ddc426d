// The logs module: getLogs, Etherscan's event log filter (a block range, an
// address, topics joined by and/or), oldest first, its numbers in hex.
import { type TopicFilter } from '../../core/queries/etherscan/logs.ts'
import { listOf, strictObject, type EtherscanAction } from './action.ts'
import { okList } from './envelope.ts'
import { MAX_BLOCK, NotOkError, readAddress, readBlockNumber, readPaging, toBytes, type Params } from './params.ts'

/** Etherscan answers at most this many logs a request. */
export const MAX_LOGS = 1000
const TOPIC = /^0x[0-9a-fA-F]{64}$/
const POSITIONS = [0, 1, 2, 3] as const

const hex = (decimal: string) => '0x' + BigInt(decimal).toString(16)

const operatorParams = Object.fromEntries(POSITIONS.flatMap((i) => POSITIONS.filter((j) => j > i).map((j) =>
  [`topic${i}_${j}_opr`, { type: 'string', description: `and (the default) or or: how topic${i} and topic${j} combine` }]))) as
  Record<string, { type: string, description: string }>

/** The topics asked, each joined to the one before it (by position) with its operator. */
function readTopics (params: Params): TopicFilter[] {
  const topics: TopicFilter[] = []
  for (const position of POSITIONS) {
    const value = params[`topic${position}`]
    if (value === undefined) continue
    if (!TOPIC.test(value)) throw new NotOkError(`Invalid topic${position} format`)
    const previous = topics.at(-1)?.position
    const join = previous === undefined ? 'and' : params[`topic${previous}_${position}_opr`] ?? 'and'
    if (join !== 'and' && join !== 'or') throw new NotOkError(`Invalid topic${previous}_${position}_opr, it must be and or or`)
    topics.push({ position, value: toBytes(value), join })
  }
  return topics
}

function readLogBlock (value: string | undefined, name: string, fallback: number): number {
  return value === 'latest' ? MAX_BLOCK : readBlockNumber(value, name, fallback)
}

const getLogs: EtherscanAction = {
  summary: `Event logs in a block range by address and/or topics, oldest first (at most ${MAX_LOGS} a request)`,
  params: {
    fromBlock: { type: 'string', description: 'The first block (default 0)' },
    toBlock: { type: 'string', description: 'The last block, or latest (the default)' },
    address: { type: 'string', description: 'The emitting contract' },
    ...Object.fromEntries(POSITIONS.map((i) => [`topic${i}`, { type: 'string', description: `A 32-byte topic at position ${i}` }])),
    ...operatorParams,
    page: { type: 'string', description: 'Page number, from 1 (with offset)' },
    offset: { type: 'string', description: `Page size, at most ${MAX_LOGS}` }
  },
  required: [],
  result: listOf(strictObject(['address', 'topics', 'data', 'blockNumber', 'blockHash', 'timeStamp', 'gasPrice', 'gasUsed', 'logIndex',
    'transactionHash', 'transactionIndex'], { topics: { type: 'array', items: { type: 'string' } } })),
  async run (params, { queries }) {
    const address = params.address === undefined ? undefined : readAddress(params.address)
    const topics = readTopics(params)
    if (address === undefined && topics.length === 0) throw new NotOkError('Query parameter \'address\' or a topic is required')
    const from = readLogBlock(params.fromBlock, 'fromBlock', 0)
    const to = readLogBlock(params.toBlock, 'toBlock', MAX_BLOCK)
    const rows = await queries.etherscan.listEtherscanLogs({ selection: { address, topics, from, to }, window: { sort: 'asc', ...readPaging(params, MAX_LOGS, MAX_LOGS) } })
    return okList(rows.map((r) => ({
      ...r,
      blockNumber: hex(r.blockNumber),
      timeStamp: hex(r.timeStamp),
      gasPrice: hex(r.gasPrice),
      gasUsed: hex(r.gasUsed),
      logIndex: hex(r.logIndex),
      transactionIndex: hex(r.transactionIndex)
    })), 'No records found')
  }
}

export const LOGS_ACTIONS: Record<string, EtherscanAction> = { getLogs }
