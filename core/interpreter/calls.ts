// Summaries read from the decoded call: approvals (approve, increase and
// decrease allowance, setApprovalForAll, permit), WETH-style wrapping, swaps
// through a router, and any other call by its method's name or selector.
import type { DecodedInput, DecodedParameter } from '../decode/index.ts'
import type { InterpretationFacts, Summary, TransferFacts } from './types.ts'
import { addressVariable, currencyVariable, methodVariable, nativeVariable, stringVariable, timestampVariable, tokenAt, tokenVariable } from './variables.ts'

const MAX_UINT256 = (1n << 256n) - 1n

type Call = { name: string, args: DecodedParameter[], to: string }

const arg = (call: Call, i: number): string => call.args[i]!.value as string
const summary = (template: string, variables: Summary['summary_template_variables']): Summary => ({ summary_template: template, summary_template_variables: variables })

function methodName (decoded: DecodedInput): string {
  return decoded.method_call.slice(0, decoded.method_call.indexOf('('))
}

/** approve(spender, amount) of an ERC-20, or approve(to, tokenId) of an ERC-721. */
function approval (facts: InterpretationFacts, call: Call): Summary {
  const token = tokenAt(facts, call.to, null)
  const spender = addressVariable(facts, arg(call, 0))
  if (token.type === 'ERC-721') {
    return summary('Approved {spender_address} to transfer {token} #{token_id}', { spender_address: spender, token: tokenVariable(token), token_id: stringVariable(arg(call, 1)) })
  }
  if (BigInt(arg(call, 1)) === MAX_UINT256) return summary('Approved {spender_address} to spend unlimited {token}', { spender_address: spender, token: tokenVariable(token) })
  if (BigInt(arg(call, 1)) === 0n) return summary('Revoked the allowance of {spender_address} for {token}', { spender_address: spender, token: tokenVariable(token) })
  return summary('Approved {spender_address} to spend {amount} {token}', { spender_address: spender, amount: currencyVariable(arg(call, 1), token.decimals), token: tokenVariable(token) })
}

function allowanceChange (facts: InterpretationFacts, call: Call, verb: 'Increased' | 'Decreased'): Summary {
  const token = tokenAt(facts, call.to, null)
  return summary(`${verb} the allowance of {spender_address} by {amount} {token}`, {
    spender_address: addressVariable(facts, arg(call, 0)), amount: currencyVariable(arg(call, 1), token.decimals), token: tokenVariable(token)
  })
}

function approvalForAll (facts: InterpretationFacts, call: Call): Summary {
  const vars = { operator_address: addressVariable(facts, arg(call, 0)), token: tokenVariable(tokenAt(facts, call.to, null)) }
  return arg(call, 1) === 'true'
    ? summary('Approved {operator_address} to transfer all of {token}', vars)
    : summary('Revoked the approval of {operator_address} for all of {token}', vars)
}

/** permit(owner, spender, value, deadline, v, r, s): EIP-2612. */
function permit (facts: InterpretationFacts, call: Call): Summary {
  const token = tokenAt(facts, call.to, null)
  return summary('Permitted {spender_address} to spend {amount} {token} of {owner_address} until {deadline}', {
    spender_address: addressVariable(facts, arg(call, 1)),
    amount: currencyVariable(arg(call, 2), token.decimals),
    token: tokenVariable(token),
    owner_address: addressVariable(facts, arg(call, 0)),
    deadline: timestampVariable(arg(call, 3))
  })
}

/** deposit() with coins and withdraw(wad) of a WETH-like token: it holds exactly what was wrapped, so 18 decimals. */
function wrapping (facts: InterpretationFacts, call: Call): Summary | null {
  const token = tokenAt(facts, call.to, 18)
  if (call.name === 'deposit' && BigInt(facts.transaction.value) > 0n) {
    return summary('Wrapped {amount} {native} into {token}', { amount: nativeVariable(facts.transaction.value), token: tokenVariable(token) })
  }
  if (call.name === 'withdraw' && call.args.length === 1) {
    return summary('Unwrapped {amount} {token} into {native}', { amount: currencyVariable(arg(call, 0), token.decimals), token: tokenVariable(token) })
  }
  return null
}

const SWAP_METHOD = /^(swap|exactInput|exactOutput)/

/**
 * A swap: what the sender paid (coins sent with the call, or its first token
 * transfer out) and what it got (its first token transfer in of another
 * token, or coins sent back to it by an internal call).
 */
function swap (facts: InterpretationFacts): Summary | null {
  const sender = facts.transaction.from
  const paidToken = facts.tokenTransfers.find((t) => t.from === sender && t.token.type === 'ERC-20')
  const gotToken = facts.tokenTransfers.find((t) => t.to === sender && t.token.type === 'ERC-20' && t.token.address !== paidToken?.token.address)
  const gotCoins = facts.internalCalls.filter((c) => c.to === sender && c.error === null).reduce((sum, c) => sum + BigInt(c.value), 0n)
  const paid = BigInt(facts.transaction.value) > 0n ? { template: '{amount_in} {native}', vars: { amount_in: nativeVariable(facts.transaction.value) } } : tokenSide(paidToken, 'in')
  const got = gotToken !== undefined ? tokenSide(gotToken, 'out') : gotCoins > 0n ? { template: '{amount_out} {native}', vars: { amount_out: nativeVariable(gotCoins) } } : null
  if (paid === null || got === null) return null
  return summary(`Swapped ${paid.template} for ${got.template}`, { ...paid.vars, ...got.vars })
}

function tokenSide (t: TransferFacts | undefined, side: 'in' | 'out') {
  if (t === undefined) return null
  return { template: `{amount_${side}} {token_${side}}`, vars: { [`amount_${side}`]: currencyVariable(t.amount ?? '0', t.token.decimals), [`token_${side}`]: tokenVariable(t.token) } }
}

/** The summary the call itself says, before its transfers: null when its transfers tell it all. */
export function callSummary (facts: InterpretationFacts): Summary | null {
  const { transaction: tx, decodedInput } = facts
  if (tx.to === null || decodedInput === null) return null
  const call: Call = { name: methodName(decodedInput), args: decodedInput.parameters, to: tx.to }
  const types = call.args.map((a) => a.type).join(',')
  if (call.name === 'approve' && types === 'address,uint256') return approval(facts, call)
  if (call.name === 'increaseAllowance' && types === 'address,uint256') return allowanceChange(facts, call, 'Increased')
  if (call.name === 'decreaseAllowance' && types === 'address,uint256') return allowanceChange(facts, call, 'Decreased')
  if (call.name === 'setApprovalForAll' && types === 'address,bool') return approvalForAll(facts, call)
  if (call.name === 'permit' && types === 'address,address,uint256,uint256,uint8,bytes32,bytes32') return permit(facts, call)
  if (call.name === 'deposit' || call.name === 'withdraw') return wrapping(facts, call)
  if (SWAP_METHOD.test(call.name)) return swap(facts)
  return null
}

/** An argument's value in a summary is cut to this many characters: the whole is in decoded_input. */
export const MAX_ARGUMENT_CHARS = 80

/** `name: value, ...` of a decoded call's arguments, each value as decoded_input writes it (arrays and tuples as JSON). */
export function argumentsText (parameters: readonly DecodedParameter[]): string {
  return parameters.map((p) => {
    const value = typeof p.value === 'string' ? p.value : JSON.stringify(p.value)
    return `${p.name}: ${value.length > MAX_ARGUMENT_CHARS ? value.slice(0, MAX_ARGUMENT_CHARS - 1) + '…' : value}`
  }).join(', ')
}

/**
 * "Called {method} on {to_address}": by the decoded name, else the selector;
 * a decoded call that takes arguments says them too ("... with {arguments}").
 */
export function methodCallSummary (facts: InterpretationFacts): Summary | null {
  const tx = facts.transaction
  if (tx.to === null || tx.input.length < 10) return null
  const decoded = facts.decodedInput
  const variables = { method: methodVariable(decoded === null ? tx.input.slice(0, 10) : methodName(decoded)), to_address: addressVariable(facts, tx.to) }
  if (decoded === null || decoded.parameters.length === 0) return summary('Called {method} on {to_address}', variables)
  return summary('Called {method} on {to_address} with {arguments}', { ...variables, arguments: stringVariable(argumentsText(decoded.parameters)) })
}
