// One statement for `address(hash) { transactions(...) { ... } }`, the query
// explorers send most: the root resolver looks ahead into its selection, reads
// the address and that page together (findAddressWithTransactions) and leaves
// the page on the address (prefetched.ts) for the transactions loader, which
// then reads nothing. Each statement is a round trip the request waits for and a wakeup
// of both processes; on a 2-CPU machine these were a third of the gateway's
// time per request (bench:graphql).
import { getArgumentValues, type GraphQLObjectType, type GraphQLResolveInfo } from 'graphql'
import type { KeysetPage } from '../../core/queries/sql/keyset.ts'
import type { TransactionColumnGroup } from '../../core/queries/graphql/records.ts'
import type { ConnectionArgs } from './connection.ts'
import { CONNECTIONS, pageFor } from './loaders.ts'
import { fieldsOf, transactionGroupsOf } from './transaction-selection.ts'

/**
 * The page and column groups of the one `transactions` field selected under
 * this `address` field. Undefined when there is none, when several ask for
 * different pages, or when its arguments are bad: the loader then reads (or
 * answers the error) as for any other parent.
 */
export function transactionsLookahead (info: GraphQLResolveInfo): { page: KeysetPage, groups: readonly TransactionColumnGroup[] } | undefined {
  const fields = info.fieldNodes.flatMap((f) => fieldsOf(f.selectionSet, info.fragments)).filter((f) => f.name.value === 'transactions')
  if (fields.length === 0 || new Set(fields.map((f) => (f.alias ?? f.name).value)).size !== 1) return undefined
  const definition = (info.schema.getType('Address') as GraphQLObjectType).getFields().transactions!
  try {
    const page = pageFor(CONNECTIONS.transactions, getArgumentValues(definition, fields[0]!, info.variableValues) as ConnectionArgs)
    return { page, groups: transactionGroupsOf({ fieldNodes: fields, fragments: info.fragments }) }
  } catch {
    return undefined
  }
}
