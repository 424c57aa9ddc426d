// No client mistake gets an internal error over GraphQL: every root field and
// every connection argument, with values a careless or hostile client sends
// (out-of-range numbers, malformed hashes, tampered cursors), answers 200 with
// data or with errors that carry a client's code, never INTERNAL_SERVER_ERROR.
import t from 'tap'
import { JsonRpcProvider, Wallet } from 'ethers'
import { build } from '../../helper.ts'
import { waitForReceipt } from '../../support/chain.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { postGraphql } from '../../support/graphql.ts'

const { app, url, chain } = await build(t)
const provider = new JsonRpcProvider(`${url}/rpc`, 793788, { staticNetwork: true, cacheTimeout: -1 })
t.teardown(() => provider.destroy())
// One transaction: an address and a transaction for the nested connections to hang off.
const sent = await new Wallet(chain.account.privateKey, provider).sendTransaction({ to: Wallet.createRandom().address, value: 1n })
await waitForReceipt(provider, sent.hash)
await waitForIndexed(app)
const sender = JSON.stringify(chain.account.address)
const transaction = JSON.stringify(sent.hash)

const rawCursor = (json: string): string => JSON.stringify(Buffer.from(json).toString('base64url'))
const cursor = (value: unknown): string => rawCursor(JSON.stringify(value))
const BIG = Number.MAX_SAFE_INTEGER
// Tags and arities of the connections' cursors (plugins/graphql/loaders.ts), with keys past every column's range.
const CURSORS = [
  cursor(['tx', BIG, BIG]), cursor(['tx', -BIG, -BIG]), cursor(['tt', BIG, BIG, BIG]), cursor(['tt', -1, -1, -1]),
  cursor(['it', BIG]), cursor(['it', -BIG]), cursor(['log', BIG]), cursor(['log', -BIG]),
  rawCursor('["tx",1e309,1]'), cursor(['tx', '1', '2']), cursor(['tx']), cursor([]), cursor({}), cursor(null), '"%%%"', '""'
]
const NUMBERS = ['-1', '0', '101', '2147483647', '2147483648', '-2147483649', '99999999999999999999', '1.5', 'null', '"1"', 'true', '[]']
const STRINGS = ['""', '"0x"', '"0xZZ"', `"0x${'g'.repeat(40)}"`, `"0x${'a'.repeat(39)}"`, `"0x${'a'.repeat(41)}"`, `"0x${'a'.repeat(64)}"`,
  `"0x${'a'.repeat(65)}"`, `"${'x'.repeat(5000)}"`, '"\\u0000"', '"null"', 'null', '1', '[]', `"${Buffer.from('["Block",1]').toString('base64')}"`]

const connection = (args: string) => `(${args}) { edges { cursor node { __typename } } pageInfo { hasNextPage endCursor } }`
const TEMPLATES: Array<[string, string[]]> = [
  ['{ node(id: $) { id } }', [...STRINGS, ...CURSORS]],
  ['{ address(hash: $) { hash } }', STRINGS],
  ['{ addresses(hashes: [$]) { hash } }', STRINGS],
  ['{ block(number: $) { hash } }', NUMBERS],
  ['{ transaction(hash: $) { hash } }', STRINGS],
  [`{ tokenTransfers${connection('tokenContractAddressHash: $, first: 1')} }`, STRINGS],
  [`{ tokenTransfers${connection(`tokenContractAddressHash: ${sender}, first: $`)} }`, NUMBERS],
  [`{ tokenTransfers${connection(`tokenContractAddressHash: ${sender}, first: 1, after: $`)} }`, CURSORS],
  [`{ tokenTransfers${connection(`tokenContractAddressHash: ${sender}, last: 1, before: $`)} }`, CURSORS],
  [`{ address(hash: ${sender}) { transactions${connection('first: $')} } }`, NUMBERS],
  [`{ address(hash: ${sender}) { transactions${connection('last: $')} } }`, NUMBERS],
  [`{ address(hash: ${sender}) { transactions${connection('count: $, first: 1')} } }`, NUMBERS],
  [`{ address(hash: ${sender}) { transactions${connection('order: $, first: 1')} } }`, ['ASC', 'DESC', 'SIDEWAYS', '"ASC"', 'null']],
  [`{ address(hash: ${sender}) { transactions${connection('first: 1, after: $')} } }`, CURSORS],
  [`{ address(hash: ${sender}) { transactions${connection('last: 1, before: $')} } }`, CURSORS],
  [`{ address(hash: ${sender}) { transactions${connection('first: 1, after: $, order: ASC')} } }`, CURSORS],
  [`{ address(hash: ${sender}) { tokenTransfers${connection('first: 1, after: $')} } }`, CURSORS],
  [`{ transaction(hash: ${transaction}) { internalTransactions${connection('first: 1, after: $')} } }`, CURSORS],
  [`{ transaction(hash: ${transaction}) { internalTransactions${connection('last: 1, before: $')} } }`, CURSORS],
  [`{ transaction(hash: ${transaction}) { logs${connection('first: 1, after: $')} } }`, CURSORS],
  [`{ transaction(hash: ${transaction}) { logs${connection('first: $')} } }`, NUMBERS]
]

t.test('every root field and connection argument answers hostile values without an internal error', async (t) => {
  let requests = 0
  const failures: string[] = []
  for (const [template, values] of TEMPLATES) {
    for (const value of values) {
      const query = template.replace('$', value)
      const { status, body } = await postGraphql(app, query)
      requests++
      const internal = (body.errors ?? []).some((e) => e.extensions?.code === 'INTERNAL_SERVER_ERROR' || e.extensions?.code === undefined)
      if (status >= 500 || internal) failures.push(`${status} ${query.slice(0, 160)}: ${JSON.stringify(body.errors).slice(0, 200)}`)
    }
  }
  t.same(failures, [], `${requests} queries, none answered with an internal error`)
})
