// Fetch stage: token metadata read from the contracts with eth_call at the
// block where the token last appears in the batch. name, symbol and decimals
// are read once per process; total supply every batch (mints and burns move it).
import { AbiCoder, Interface, toUtf8String } from 'ethers'
import type { RpcClient } from '../rpc/client.ts'
import type { BlockRows, Hex, TokenRow, TokenType } from './types.ts'

const erc20 = new Interface([
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)'
])
const abi = AbiCoder.defaultAbiCoder()

type Metadata = { name: string | null, symbol: string | null, decimals: number | null }

export type TokenMetadataCache = Map<Hex, Metadata>

/** Sets `tokens` on the last block of the batch in which each token appears. */
export async function fetchTokens (rpc: RpcClient, batch: BlockRows[], cache: TokenMetadataCache, signal?: AbortSignal): Promise<void> {
  const seen = new Map<Hex, { rows: BlockRows, type: TokenType, firstBlock: number }>()
  for (const rows of batch) {
    for (const t of rows.tokenTransfers) {
      const firstBlock = seen.get(t.token_address)?.firstBlock ?? rows.block.number
      seen.set(t.token_address, { rows, type: t.token_type, firstBlock })
    }
  }
  if (seen.size === 0) return
  // Whether each token's metadata is asked for is decided once: another batch in flight may
  // fill the cache while this one waits, and the answers are read by the calls that were sent.
  const entries = [...seen.entries()].map(([address, seenAs]) => ({ address, ...seenAs, asked: !cache.has(address) }))
  const call = (to: Hex, fn: string, rows: BlockRows) => ({
    method: 'eth_call',
    params: [{ to, data: erc20.encodeFunctionData(fn) }, { blockHash: rows.block.hash, requireCanonical: false }]
  })
  const calls = entries.flatMap(({ address, rows, asked }) => [
    call(address, 'totalSupply', rows),
    ...(asked ? [call(address, 'name', rows), call(address, 'symbol', rows), call(address, 'decimals', rows)] : [])
  ])
  const answers = await rpc.batchAnswers(calls, signal)
  let i = 0
  for (const { address, rows, type, firstBlock, asked } of entries) {
    const totalSupply = decodeUint(answers[i++]?.result)
    if (asked) {
      const metadata = {
        name: decodeText(answers[i++]?.result),
        symbol: decodeText(answers[i++]?.result),
        decimals: type === 'ERC-20' ? toSmallInt(decodeUint(answers[i++]?.result)) : (i++, null)
      }
      if (!cache.has(address)) cache.set(address, metadata)
    }
    const token: TokenRow = {
      address,
      type,
      ...cache.get(address)!,
      total_supply: totalSupply,
      first_block: firstBlock,
      updated_block: rows.block.number
    }
    rows.tokens.push(token)
  }
}

function decodeUint (result: unknown): string | null {
  if (typeof result !== 'string' || result.length !== 66) return null
  return BigInt(result).toString()
}

function toSmallInt (value: string | null): number | null {
  return value === null || BigInt(value) > 255n ? null : Number(value)
}

/** ABI strings, or bytes32 as some early tokens return; null for anything else. */
function decodeText (result: unknown): string | null {
  if (typeof result !== 'string' || result === '0x') return null
  try {
    return clean(abi.decode(['string'], result)[0] as string)
  } catch {
    if (result.length !== 66) return null
    try {
      return clean(toUtf8String(result).replace(/\0+$/, ''))
    } catch {
      return null
    }
  }
}

/** PostgreSQL text cannot hold NUL; a name is shown, so keep it short. */
function clean (text: string): string | null {
  const cleaned = text.replace(/\0/g, '').slice(0, 255)
  return cleaned === '' ? null : cleaned
}
