// Summaries of token movements: a line per transfer (mint and burn from and
// to the zero address) when there are few, else a line per token, else one
// line for the lot, so that an airdrop of 50 transfers is not 50 lines.
import type { InterpretationFacts, Summary, TransferFacts } from './types.ts'
import { ZERO_ADDRESS, addressVariable, currencyVariable, stringVariable, tokenVariable } from './variables.ts'

/** More transfers than this are summarised per token; more tokens than this, as one line. */
export const MAX_TRANSFER_LINES = 3

const isNft = (t: TransferFacts) => t.token.type === 'ERC-721'

function transferLine (facts: InterpretationFacts, t: TransferFacts): Summary {
  const vars: Summary['summary_template_variables'] = { token: tokenVariable(t.token) }
  if (t.amount !== null && !isNft(t)) vars.amount = currencyVariable(t.amount, t.token.type === 'ERC-20' ? t.token.decimals : 0)
  if (t.tokenId !== null) vars.token_id = stringVariable(t.tokenId)
  const what = (vars.amount === undefined ? '' : '{amount} ') + '{token}' + (t.tokenId === null ? '' : ' #{token_id}')
  if (t.from === ZERO_ADDRESS) return { summary_template: `Minted ${what} to {to_address}`, summary_template_variables: { ...vars, to_address: addressVariable(facts, t.to) } }
  if (t.to === ZERO_ADDRESS) return { summary_template: `Burned ${what} from {from_address}`, summary_template_variables: { ...vars, from_address: addressVariable(facts, t.from) } }
  return {
    summary_template: `Transferred ${what} from {from_address} to {to_address}`,
    summary_template_variables: { ...vars, from_address: addressVariable(facts, t.from), to_address: addressVariable(facts, t.to) }
  }
}

function tokenLine (facts: InterpretationFacts, transfers: TransferFacts[]): Summary {
  const token = transfers[0]!.token
  const recipients = new Set(transfers.map((t) => t.to)).size
  const vars: Summary['summary_template_variables'] = {
    token: tokenVariable(token),
    transfer_count: stringVariable(String(transfers.length)),
    recipient_count: stringVariable(String(recipients))
  }
  if (token.type === 'ERC-721') {
    return { summary_template: 'Transferred {transfer_count} {token} items to {recipient_count} addresses', summary_template_variables: vars }
  }
  const total = transfers.reduce((sum, t) => sum + BigInt(t.amount ?? 0), 0n)
  vars.amount = currencyVariable(total, token.type === 'ERC-20' ? token.decimals : 0)
  return { summary_template: 'Transferred {amount} {token} in {transfer_count} transfers to {recipient_count} addresses', summary_template_variables: vars }
}

export function transferSummaries (facts: InterpretationFacts): Summary[] {
  const transfers = facts.tokenTransfers
  if (transfers.length <= MAX_TRANSFER_LINES) return transfers.map((t) => transferLine(facts, t))
  const byToken = new Map<string, TransferFacts[]>()
  for (const t of transfers) byToken.set(t.token.address, [...byToken.get(t.token.address) ?? [], t])
  if (byToken.size <= MAX_TRANSFER_LINES) return [...byToken.values()].map((group) => tokenLine(facts, group))
  return [{
    summary_template: 'Made {transfer_count} token transfers of {token_count} tokens',
    summary_template_variables: { transfer_count: stringVariable(String(transfers.length)), token_count: stringVariable(String(byToken.size)) }
  }]
}
