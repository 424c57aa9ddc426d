// What the node holds, in the Etherscan-style API's shapes: every block's
// transactions with their receipts, call frames (callTracer), logs and token
// transfers (decoded from the receipts' logs), read over JSON-RPC only, so a
// test compares /api's answers with the chain and not with the index.
import { AbiCoder, Interface } from 'ethers'
import type { RpcClient } from '../../core/rpc/client.ts'

type RpcTx = { hash: string, nonce: string, from: string, to: string | null, value: string, gas: string, input: string, transactionIndex: string }
type RpcBlock = { number: string, hash: string, timestamp: string, miner: string, gasUsed: string, gasLimit: string, baseFeePerGas?: string, transactions: RpcTx[] }
type RpcLog = { address: string, topics: string[], data: string, logIndex: string, transactionHash: string, transactionIndex: string }
type RpcReceipt = { status: string, gasUsed: string, cumulativeGasUsed: string, effectiveGasPrice: string, contractAddress: string | null, logs: RpcLog[] }
type Frame = { type: string, from: string, to?: string, value?: string, gas: string, gasUsed: string, error?: string, calls?: Frame[] }

export type NodeTransaction = Record<string, string>
export type NodeFrame = Record<string, string> & { txIndex: string, index: string }
export type NodeLog = Record<'address' | 'data' | 'blockNumber' | 'blockHash' | 'timeStamp' | 'gasPrice' | 'gasUsed' | 'logIndex' | 'transactionHash' |
'transactionIndex', string> & { topics: string[] }
export type NodeTransfer = Record<string, string> & { standard: 'ERC-20' | 'ERC-721' | 'ERC-1155' }

export type NodeChain = {
  head: number
  blocks: RpcBlock[]
  receipts: Map<string, RpcReceipt>
  transactions: NodeTransaction[]
  /** Frames other than a transaction's own top-level call (a top-level create stays), in chain order. */
  frames: NodeFrame[]
  logs: NodeLog[]
  transfers: NodeTransfer[]
}

const EVENTS = new Interface([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)'
])
const METADATA = new Interface(['function name() view returns (string)', 'function symbol() view returns (string)', 'function decimals() view returns (uint8)'])
const dec = (hex: string | undefined) => BigInt(hex ?? '0x0').toString()
const hexOf = (n: string | number) => '0x' + BigInt(n).toString(16)
const topicAddress = (topic: string) => '0x' + topic.slice(26)

export async function readNodeChain (rpc: RpcClient, head: number): Promise<NodeChain> {
  const chain: NodeChain = { head, blocks: [], receipts: new Map(), transactions: [], frames: [], logs: [], transfers: [] }
  const tokens = new Map<string, { name: string, symbol: string, decimals: string }>()
  for (let n = 1; n <= head; n++) {
    const block = await rpc.call<RpcBlock>('eth_getBlockByNumber', [hexOf(n), true])
    const receipts = await rpc.call<RpcReceipt[]>('eth_getBlockReceipts', [hexOf(n)])
    const traces = await rpc.call<Array<{ result: Frame }>>('debug_traceBlockByNumber', [hexOf(n), { tracer: 'callTracer' }])
    chain.blocks.push(block)
    const base = { blockNumber: String(n), timeStamp: dec(block.timestamp) }
    for (const [i, tx] of block.transactions.entries()) {
      const receipt = receipts[i]!
      chain.receipts.set(tx.hash, receipt)
      const common = {
        ...base,
        hash: tx.hash,
        nonce: dec(tx.nonce),
        blockHash: block.hash,
        transactionIndex: String(i),
        gas: dec(tx.gas),
        gasPrice: dec(receipt.effectiveGasPrice),
        gasUsed: dec(receipt.gasUsed),
        cumulativeGasUsed: dec(receipt.cumulativeGasUsed),
        confirmations: String(head - n + 1)
      }
      chain.transactions.push({
        ...common,
        from: tx.from,
        to: tx.to ?? '',
        value: dec(tx.value),
        isError: receipt.status === '0x1' ? '0' : '1',
        txreceipt_status: dec(receipt.status),
        input: tx.input,
        contractAddress: receipt.contractAddress ?? '',
        methodId: tx.input.slice(0, 10),
        functionName: ''
      })
      let index = 0
      const visit = (frame: Frame, traceAddress: number[]) => {
        const type = frame.type.toLowerCase()
        const isCreate = type === 'create' || type === 'create2'
        if (index > 0 || type !== 'call') {
          chain.frames.push({
            ...base,
            hash: tx.hash,
            from: frame.from,
            to: isCreate ? '' : frame.to ?? '',
            value: dec(frame.value),
            contractAddress: isCreate && frame.error === undefined ? frame.to! : '',
            input: '',
            type,
            gas: dec(frame.gas),
            gasUsed: dec(frame.gasUsed),
            traceId: traceAddress.join('_'),
            isError: frame.error === undefined ? '0' : '1',
            errCode: frame.error ?? '',
            txIndex: String(i),
            index: String(index)
          })
        }
        index++
        frame.calls?.forEach((child, k) => visit(child, [...traceAddress, k]))
      }
      visit(traces[i]!.result, [])
      for (const log of receipt.logs) {
        chain.logs.push({
          address: log.address,
          topics: log.topics,
          data: log.data,
          blockNumber: hexOf(n),
          blockHash: block.hash,
          timeStamp: hexOf(block.timestamp),
          gasPrice: hexOf(receipt.effectiveGasPrice),
          gasUsed: hexOf(receipt.gasUsed),
          logIndex: hexOf(log.logIndex),
          transactionHash: tx.hash,
          transactionIndex: hexOf(i)
        })
        for (const transfer of decodeTransfers(log)) {
          const token = await readTokenMetadata(rpc, tokens, log.address)
          // Etherscan writes an NFT's decimals as 0.
          const decimals = transfer.standard === 'ERC-721' ? { tokenDecimal: '0' } : {}
          chain.transfers.push({ ...common, input: 'deprecated', contractAddress: log.address, ...transfer, ...token, ...decimals })
        }
      }
    }
  }
  return chain
}

/** The transfers a log records: ERC-20 and ERC-721 Transfer (told apart by the indexed id), ERC-1155 single and batch. */
function decodeTransfers (log: RpcLog): Array<Record<string, string> & { standard: NodeTransfer['standard'] }> {
  const [topic0, ...indexed] = log.topics
  if (topic0 === EVENTS.getEvent('Transfer')!.topicHash) {
    const [from, to] = [topicAddress(indexed[0]!), topicAddress(indexed[1]!)]
    return indexed.length === 3
      ? [{ standard: 'ERC-721', from, to, tokenID: BigInt(indexed[2]!).toString() }]
      : [{ standard: 'ERC-20', from, to, value: BigInt(log.data).toString() }]
  }
  const single = topic0 === EVENTS.getEvent('TransferSingle')!.topicHash
  if (!single && topic0 !== EVENTS.getEvent('TransferBatch')!.topicHash) return []
  const [from, to] = [topicAddress(indexed[1]!), topicAddress(indexed[2]!)]
  const [ids, values] = AbiCoder.defaultAbiCoder().decode(single ? ['uint256', 'uint256'] : ['uint256[]', 'uint256[]'], log.data)
  const idList: bigint[] = single ? [ids] : [...ids]
  const valueList: bigint[] = single ? [values] : [...values]
  return idList.map((id, k) => ({ standard: 'ERC-1155', from, to, tokenID: id.toString(), tokenValue: valueList[k]!.toString() }))
}

async function readTokenMetadata (rpc: RpcClient, cache: Map<string, { name: string, symbol: string, decimals: string }>, address: string) {
  let token = cache.get(address)
  if (token === undefined) {
    const call = async (name: string): Promise<string> => {
      try {
        const data = await rpc.call<string>('eth_call', [{ to: address, data: METADATA.encodeFunctionData(name) }, 'latest'])
        return String(METADATA.decodeFunctionResult(name, data)[0])
      } catch {
        return ''
      }
    }
    token = { name: await call('name'), symbol: await call('symbol'), decimals: await call('decimals') }
    cache.set(address, token)
  }
  return { tokenName: token.name, tokenSymbol: token.symbol, tokenDecimal: token.decimals }
}

/** Whether the row involves `address` (lower-case) as sender or recipient. */
export const involves = (address: string) => (row: Record<string, string>) => row.from === address || row.to === address

/** The row with only `fields`, in that order: Etherscan's shape of one list. */
export const shaped = (fields: string[]) => (row: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(fields.map((f) => [f, row[f]]))
