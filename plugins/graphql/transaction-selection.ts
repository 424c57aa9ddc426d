// Which of a transaction's column groups (core/queries/graphql/records.ts) a
// connection of transactions must read: those whose fields the query selects
// under `edges { node { ... } }`, through fragments too. A field this file does
// not know (one added to the schema later) reads every group: a list that
// reads too much is slower, one that reads too little answers null.
import type { FieldNode, FragmentDefinitionNode, SelectionSetNode } from 'graphql'
import { ALL_TRANSACTION_COLUMN_GROUPS, type TransactionColumnGroup } from '../../core/queries/graphql/records.ts'

/** The part of a resolver's info this reads (graphql-js and graphql-jit both give it). */
export type SelectionInfo = { fieldNodes: readonly FieldNode[], fragments: Record<string, FragmentDefinitionNode> }

/** Transaction fields served by the core columns, or by loaders keyed on them. */
const CORE_FIELDS = new Set([
  '__typename', 'id', 'hash', 'r', 's', 'v', 'gas', 'gasPrice', 'gasUsed', 'index', 'nonce', 'status', 'value', 'blockNumber', 'block',
  'fromAddressHash', 'toAddressHash', 'createdContractAddressHash', 'fromAddress', 'toAddress', 'createdContractAddress',
  'hasErrorInInternalTransactions', 'internalTransactions', 'logs', 'earliestProcessingStart', 'summary'
])

const FIELD_GROUPS: Record<string, TransactionColumnGroup> = {
  input: 'input',
  blockHash: 'block',
  cumulativeGasUsed: 'fees',
  maxFeePerGas: 'fees',
  maxPriorityFeePerGas: 'fees',
  type: 'fees',
  error: 'failure',
  revertReason: 'failure'
}

/** The fields of a selection set, with fragment spreads and inline fragments opened. */
export function fieldsOf (set: SelectionSetNode | undefined, fragments: SelectionInfo['fragments']): FieldNode[] {
  const fields: FieldNode[] = []
  for (const selection of set?.selections ?? []) {
    if (selection.kind === 'Field') fields.push(selection)
    else if (selection.kind === 'InlineFragment') fields.push(...fieldsOf(selection.selectionSet, fragments))
    else fields.push(...fieldsOf(fragments[selection.name.value]?.selectionSet, fragments))
  }
  return fields
}

const named = (fields: FieldNode[], name: string): FieldNode[] => fields.filter((f) => f.name.value === name)

// A parsed query is cached and run again (mercurius keeps the document), so
// its field nodes come back request after request: their groups are worked
// out once. A node belongs to one document, whose fragments do not change.
const groupsOfField = new WeakMap<FieldNode, readonly TransactionColumnGroup[]>()

/** The groups the transactions under this connection field's `edges { node }` need, in ALL_TRANSACTION_COLUMN_GROUPS' order (one key per set). */
export function transactionGroupsOf (info: SelectionInfo): readonly TransactionColumnGroup[] {
  const only = info.fieldNodes.length === 1 ? info.fieldNodes[0]! : undefined
  const known = only === undefined ? undefined : groupsOfField.get(only)
  if (known !== undefined) return known
  // Frozen: callers share it.
  const groups = Object.freeze(selectedGroups(info))
  if (only !== undefined) groupsOfField.set(only, groups)
  return groups
}

function selectedGroups (info: SelectionInfo): TransactionColumnGroup[] {
  const connection = info.fieldNodes.flatMap((f) => fieldsOf(f.selectionSet, info.fragments))
  const nodes = named(connection, 'edges').flatMap((edge) => named(fieldsOf(edge.selectionSet, info.fragments), 'node'))
  const groups = new Set<TransactionColumnGroup>()
  for (const field of nodes.flatMap((node) => fieldsOf(node.selectionSet, info.fragments))) {
    const name = field.name.value
    if (CORE_FIELDS.has(name)) continue
    const group = FIELD_GROUPS[name]
    if (group === undefined) return [...ALL_TRANSACTION_COLUMN_GROUPS]
    groups.add(group)
  }
  return ALL_TRANSACTION_COLUMN_GROUPS.filter((g) => groups.has(g))
}
