// Blockscout's snake_case spellings become the schema's camelCase, answered under the query's spelling.
import t from 'tap'
import { parse, print } from 'graphql'
import { camelCaseDocument } from '../../../plugins/graphql/spelling.ts'
import { pageOf, encodeCursor } from '../../../plugins/graphql/connection.ts'

t.test('camelCaseDocument() renames snake_case fields and arguments, aliasing fields back', async (t) => {
  const document = parse(`query ($token_contract_address_hash: AddressHash!) {
    token_transfers(token_contract_address_hash: $token_contract_address_hash, first: 1) {
      page_info { has_next_page } mine: log_index ...F } __typename }
    fragment F on TokenTransferConnection { edges { node { block_number } } }`)
  camelCaseDocument(document)
  t.equal(print(document), print(parse(`query ($token_contract_address_hash: AddressHash!) {
    token_transfers: tokenTransfers(tokenContractAddressHash: $token_contract_address_hash, first: 1) {
      page_info: pageInfo { has_next_page: hasNextPage } mine: logIndex ...F } __typename }
    fragment F on TokenTransferConnection { edges { node { block_number: blockNumber } } }`)))
})

t.test('pageOf() reads Relay arguments and refuses bad ones with Blockscout\'s wording', async (t) => {
  const kind = { tag: 'tx', columns: ['block_number', 'transaction_index'], order: 'desc' as const }
  t.same(pageOf({ first: 3, after: encodeCursor('tx', [7, 1]) }, kind), { limit: 3, after: [7, 1], before: undefined, fromEnd: false, order: 'desc' })
  t.same(pageOf({ last: 2, count: 9 }, kind), { limit: 2, after: undefined, before: undefined, fromEnd: true, order: 'desc' })
  const cases: Array<[object, RegExp]> = [
    [{}, /You must either supply `:first` or `:last`/],
    [{ first: 1, last: 1 }, /not both/],
    [{ first: -1 }, /between 0 and 100/],
    [{ last: 101 }, /`last` must be between 0 and 100/],
    [{ first: 1, after: 'bm90IGpzb24' }, /Invalid cursor provided as `after` argument/],
    [{ first: 1, before: encodeCursor('tt', [7, 1]) }, /Invalid cursor provided as `before` argument/],
    [{ first: 1, after: encodeCursor('tx', [7]) }, /Invalid cursor/],
    [{ first: 1, after: encodeCursor('tx', [7, 'x'] as never) }, /Invalid cursor/]
  ]
  for (const [args, message] of cases) t.throws(() => pageOf(args, kind), { message, extensions: { code: 'BAD_USER_INPUT' } }, JSON.stringify(args))
})
