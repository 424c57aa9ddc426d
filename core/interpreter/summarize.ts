// The interpreter: a successful transaction's facts to Blockscout's summaries.
// Pure and deterministic: the same facts always give the same lines, so
// summaries can be cached and compared in tests.
import type { InterpretationFacts, Summary } from './types.ts'
import { callSummary, methodCallSummary } from './calls.ts'
import { transferSummaries } from './transfers.ts'
import { addressVariable, nativeVariable, stringVariable } from './variables.ts'

/** Calls whose name says they move tokens: their transfers tell what they did. */
const TRANSFER_METHODS = new Set(['transfer', 'transferFrom', 'safeTransferFrom', 'safeBatchTransferFrom', 'mint', 'safeMint', 'mintBatch', 'burn', 'burnFrom'])

const coinsSent = (facts: InterpretationFacts, template = 'Sent {amount} {native} to {to_address}'): Summary => ({
  summary_template: template,
  summary_template_variables: { amount: nativeVariable(facts.transaction.value), to_address: addressVariable(facts, facts.transaction.to!) }
})

function creationSummaries (facts: InterpretationFacts): Summary[] {
  const contract = facts.transaction.createdContract
  const lines: Summary[] = contract === null
    ? []
    : [{ summary_template: 'Created contract {contract_address}', summary_template_variables: { contract_address: addressVariable(facts, contract) } }]
  return [...lines, ...transferSummaries(facts)]
}

function callSummaries (facts: InterpretationFacts): Summary[] {
  const tx = facts.transaction
  const isCall = tx.toIsContract && tx.input.length >= 10
  if (!isCall) return [coinsSent(facts)]
  const special = callSummary(facts)
  // An approval, a wrap or a swap says it all: its transfers are its legs.
  if (special !== null) return [special]
  const lines: Summary[] = []
  const method = facts.decodedInput?.method_call.slice(0, facts.decodedInput.method_call.indexOf('('))
  if (facts.tokenTransfers.length === 0 || method === undefined || !TRANSFER_METHODS.has(method)) lines.push(methodCallSummary(facts)!)
  lines.push(...transferSummaries(facts))
  if (BigInt(tx.value) > 0n) lines.push(coinsSent(facts))
  return lines
}

/** The inner calls that failed in a transaction that succeeded: the first, and how many. */
function internalFailures (facts: InterpretationFacts): Summary[] {
  const failed = facts.internalCalls.filter((c) => c.error !== null && c.traceIndex > 0)
  const first = failed[0]
  if (first === undefined) return []
  const target = first.to ?? first.createdContract
  const vars: Summary['summary_template_variables'] = { error: stringVariable(first.error!) }
  if (target !== null) vars.to_address = addressVariable(facts, target)
  const where = target === null ? '' : ' to {to_address}'
  return failed.length === 1
    ? [{ summary_template: `An internal call${where} failed ({error}); the transaction succeeded`, summary_template_variables: vars }]
    : [{ summary_template: `{failed_count} internal calls failed, the first${where} ({error}); the transaction succeeded`, summary_template_variables: { ...vars, failed_count: stringVariable(String(failed.length)) } }]
}

/** Summaries of a successful transaction (Blockscout gives none for a failed one). */
export function summarize (facts: InterpretationFacts): Summary[] {
  const lines = facts.transaction.to === null ? creationSummaries(facts) : callSummaries(facts)
  return [...lines, ...internalFailures(facts)]
}
