// What the interpreter reads (facts about one indexed transaction) and what it
// writes (Blockscout's summaries: a template and its typed variables).
import type { DecodedInput, DecodedLog } from '../decode/index.ts'

/** Blockscout's AddressParam, the members a summary needs. */
export type AddressParam = { hash: string, name: string | null, is_contract: boolean, is_verified: boolean }

/** Blockscout's TokenInfo, the members a summary needs (`address` and `address_hash` both, as Blockscout's enrichment leaves them). */
export type TokenParam = {
  address: string
  address_hash: string
  name: string | null
  symbol: string | null
  decimals: string | null
  type: string
  icon_url: null
}

export type SummaryVariable =
  | { type: 'address', value: AddressParam }
  | { type: 'token', value: TokenParam }
  | { type: 'currency', value: string }
  | { type: 'method', value: string }
  | { type: 'timestamp', value: string }
  | { type: 'string', value: string }

export type Summary = { summary_template: string, summary_template_variables: Record<string, SummaryVariable> }

/** A token as indexed (tokens table); addresses lowercase 0x-hex throughout the facts. */
export type TokenFacts = { address: string, type: string, name: string | null, symbol: string | null, decimals: number | null }

export type TransferFacts = {
  token: TokenFacts
  from: string
  to: string
  /** Units moved (null for ERC-721). */
  amount: string | null
  tokenId: string | null
  logIndex: number
}

export type InternalCallFacts = { type: string, from: string, to: string | null, createdContract: string | null, value: string, error: string | null, traceIndex: number }

export type LogFacts = { address: string, index: number, topics: Array<string | null>, data: string, decoded: DecodedLog | null }

export type TransactionFacts = {
  hash: string
  from: string
  to: string | null
  createdContract: string | null
  /** Wei, decimal. */
  value: string
  status: 'ok' | 'error'
  /** Seconds since the epoch. */
  timestamp: number
  input: string
  toIsContract: boolean
}

export type InterpretationFacts = {
  transaction: TransactionFacts
  decodedInput: DecodedInput | null
  tokenTransfers: TransferFacts[]
  logs: LogFacts[]
  internalCalls: InternalCallFacts[]
  /** Every address the transaction touches, lowercase, with its name and flags. */
  addresses: ReadonlyMap<string, AddressParam>
  /** The tokens the transaction touches (transfers, and the callee when it is one), by lowercase address. */
  tokens: ReadonlyMap<string, TokenFacts>
  coinSymbol: string
}
