import t from 'tap'
import { parse, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql'
import { transactionGroupsOf } from '../../../plugins/graphql/transaction-selection.ts'
import { ALL_TRANSACTION_COLUMN_GROUPS } from '../../../core/queries/graphql/records.ts'

/** The info a resolver of `address.transactions` gets for `query`. */
function infoOf (query: string): Parameters<typeof transactionGroupsOf>[0] {
  const document = parse(query)
  const operation = document.definitions.find((d) => d.kind === 'OperationDefinition') as OperationDefinitionNode
  const address = operation.selectionSet.selections[0] as FieldNode
  const fieldNodes = address.selectionSet!.selections.filter((s): s is FieldNode => s.kind === 'Field' && s.name.value === 'transactions')
  const fragments = Object.fromEntries(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === 'FragmentDefinition').map((f) => [f.name.value, f]))
  return { fieldNodes, fragments }
}

const groups = (query: string): string[] => [...transactionGroupsOf(infoOf(query))].sort()

t.test('a list of the usual fields reads the core columns alone', async (t) => {
  t.same(groups('{ address { transactions(first: 50) { edges { cursor node { hash blockNumber index fromAddressHash toAddressHash createdContractAddressHash value gas gasUsed gasPrice status nonce } } pageInfo { hasNextPage } } } }'), [])
  t.same(groups('{ address { transactions { edges { node { id __typename block { hash } fromAddress { hash } internalTransactions { edges { node { index } } } } } } } }'), [], 'edges to other rows need only the keys')
  t.same(groups('{ address { transactions { pageInfo { hasNextPage } } } }'), [], 'no node asked for')
})

t.test('each other field brings its group, through fragments too', async (t) => {
  t.same(groups('{ address { transactions { edges { node { hash input } } } } }'), ['input'])
  t.same(groups('{ address { transactions { edges { node { ...F } } } } } fragment F on Transaction { blockHash error }'), ['block', 'failure'])
  t.same(groups('{ address { transactions { edges { node { ... on Transaction { type } } } } } }'), ['fees'])
  t.same(groups('{ address { transactions { ...C } } } fragment C on TransactionConnection { edges { ...E } } fragment E on TransactionEdge { node { revertReason cumulativeGasUsed } }'), ['failure', 'fees'])
  t.same(groups('{ address { transactions { edges { node { input } } } transactions { edges { node { maxFeePerGas } } } } }'), ['fees', 'input'], 'every field node of the connection counts')
})

t.test('a field it does not know reads every group', async (t) => {
  t.same(groups('{ address { transactions { edges { node { hash somethingNew } } } } }'), [...ALL_TRANSACTION_COLUMN_GROUPS].sort())
})

t.test('a field node\'s groups are worked out once and shared, frozen', async (t) => {
  const info = infoOf('{ address { transactions { edges { node { hash input error } } } } }')
  const first = transactionGroupsOf(info)
  t.equal(transactionGroupsOf({ ...info, fragments: {} }), first, 'the same node again: the same array, not read again')
  t.ok(Object.isFrozen(first), 'callers cannot change what the next request gets')
  t.same(first, ['input', 'failure'])
  const other = infoOf('{ address { transactions { edges { node { hash input error } } } } }')
  t.not(transactionGroupsOf(other), first, 'another document\'s node is its own')
})
