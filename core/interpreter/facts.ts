// Reads the facts the interpreter works from: the indexed rows of one
// transaction, its input and logs decoded, and every address it touches
// named (a verified contract's name, else its token's name or symbol, else
// the public tag an operator gave it).
import { checksumAddress } from '../decode/checksum.ts'
import type { Decoder, DecodedParameter } from '../decode/index.ts'
import { type InterpretedTransactionRow } from '../queries/transactions/interpretation.ts'
import type { AddressParam, InterpretationFacts, TokenFacts } from './types.ts'
import type { Queries } from '../queries/index.ts'

const ADDRESS_PARAM = /^0x[0-9a-fA-F]{40}$/

export type LoadedFacts = { row: InterpretedTransactionRow, facts: InterpretationFacts }

/** Address values among the decoded call's parameters (top level): a spender or an operator deserves a name too. */
function parameterAddresses (parameters: readonly DecodedParameter[]): string[] {
  return parameters.filter((p) => p.type === 'address' && typeof p.value === 'string' && ADDRESS_PARAM.test(p.value)).map((p) => (p.value as string).toLowerCase())
}

/** Names at the transaction's block: a proxy is named by the implementation it had then. */
async function nameAddresses (queries: Queries, decoder: Decoder, addresses: Set<string>, blockNumber: number) {
  const rows = await queries.readAddresses([...addresses])
  const named = new Map<string, AddressParam>()
  const tokens = new Map<string, TokenFacts>()
  await Promise.all(rows.map(async (r) => {
    // Only code can be verified: most addresses a transaction touches are accounts, and they cost nothing here.
    const verifiedName = r.is_contract ? await decoder.contractName(r.hash, blockNumber) : null
    if (r.token_type !== null) tokens.set(r.hash, { address: r.hash, type: r.token_type, name: r.token_name, symbol: r.token_symbol, decimals: r.token_decimals })
    named.set(r.hash, { hash: checksumAddress(r.hash), name: verifiedName ?? r.token_name ?? r.token_symbol ?? r.tag, is_contract: r.is_contract, is_verified: verifiedName !== null })
  }))
  return { named, tokens }
}

/** The facts of transaction `hash`, or undefined when it is not indexed. */
export async function loadFacts (queries: Queries, decoder: Decoder, hash: Buffer, coinSymbol: string): Promise<LoadedFacts | undefined> {
  const row = await queries.findInterpretedTransaction(hash)
  return row === undefined ? undefined : await loadFactsOf(queries, decoder, row, coinSymbol)
}

/** The facts of a transaction already read. */
export async function loadFactsOf (queries: Queries, decoder: Decoder, row: InterpretedTransactionRow, coinSymbol: string): Promise<LoadedFacts> {
  const hash = Buffer.from(row.hash.slice(2), 'hex')
  const [parts, decodedInput] = await Promise.all([
    queries.readTransactionParts(hash),
    // Decoded at the transaction's block, so that a proxy upgraded since, on any instance, reads the same.
    row.to !== null && row.to_is_contract ? decoder.decodeInput(row.to, row.input, row.block_number) : null
  ])
  const tokenTransfers = parts.transfers.map((t) => ({
    token: { address: t.token_address, type: t.token_type, name: t.name, symbol: t.symbol, decimals: t.decimals },
    from: t.from,
    to: t.to,
    amount: t.token_type === 'ERC-721' ? null : t.amount,
    tokenId: t.token_id,
    logIndex: t.log_index
  }))
  const logs = await Promise.all(parts.logs.map(async (l) => {
    const topics = [l.topic0, l.topic1, l.topic2, l.topic3]
    const { address, data } = l
    return { address, index: l.log_index, topics, data, decoded: await decoder.decodeLog(address, topics, data, row.block_number) }
  }))
  const internalCalls = parts.calls.map((c) => ({
    type: c.type, from: c.from, to: c.to, createdContract: c.created_contract, value: c.value, error: c.error, traceIndex: c.trace_index
  }))
  const addresses = new Set<string>([row.from, row.to, row.created_contract].filter((a): a is string => a !== null))
  for (const t of tokenTransfers) addresses.add(t.from).add(t.to).add(t.token.address)
  for (const l of logs) addresses.add(l.address)
  for (const c of internalCalls) for (const a of [c.from, c.to, c.createdContract]) if (a !== null) addresses.add(a)
  for (const a of parameterAddresses(decodedInput?.parameters ?? [])) addresses.add(a)
  const { named, tokens } = await nameAddresses(queries, decoder, addresses, row.block_number)
  return {
    row,
    facts: {
      transaction: {
        hash: row.hash,
        from: row.from,
        to: row.to,
        createdContract: row.created_contract,
        value: row.value,
        status: row.status === 1 ? 'ok' : 'error',
        timestamp: row.timestamp,
        input: row.input,
        toIsContract: row.to_is_contract
      },
      decodedInput,
      tokenTransfers,
      logs,
      internalCalls,
      addresses: named,
      tokens,
      coinSymbol
    }
  }
}
