// The GraphQL API on a real chain: Blockscout's kinds of queries, values
// compared with the node, keyset cursors walked both ways, limits and errors,
// a bounded number of SQL statements, and subscriptions fed by the indexer.
import t, { type Test } from 'tap'
import { Contract, ContractFactory, JsonRpcProvider } from 'ethers'
import { build } from '../../helper.ts'
import { sealBlocks, writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { waitForReceipt } from '../../support/chain.ts'
import { compileContract, TEST_TOKEN_SOURCE } from '../../support/contracts.ts'
import { postGraphql, subscribeGraphql } from '../../support/graphql.ts'
import { captureStatements } from '../../support/statements.ts'
import { createPreparedStatements } from '../../../core/queries/sql/prepared.ts'

const { wallets, allocFile } = await writeFundedAlloc(t, 3)
const { app, url } = await build(t, { GENESIS_ALLOC: allocFile })
const provider = new JsonRpcProvider(`${url}/rpc`, 793788, { staticNetwork: true, cacheTimeout: -1 })
t.teardown(() => provider.destroy())
const rpc = app.geth.rpc
const deployer = wallets[2]!.connect(provider)

async function deploy (source: URL, name: string, args: unknown[]): Promise<{ contract: Contract, address: string, creation: string }> {
  const compiled = await compileContract(source, name)
  const contract = await new ContractFactory(compiled.abi as never, compiled.bytecode, deployer).deploy(...args) as Contract
  const creation = contract.deploymentTransaction()!.hash
  await waitForReceipt(provider, creation)
  return { contract, address: (await contract.getAddress()).toLowerCase(), creation }
}

const token = await deploy(TEST_TOKEN_SOURCE, 'TestToken', ['Graph', 'GQL', 10n ** 21n])
const caller = await deploy(new URL('../../fixtures/contracts/Caller.sol', import.meta.url), 'Caller', [])
const send = async (sent: Promise<{ hash: string }>): Promise<string> => (await waitForReceipt(provider, (await sent).hash)).hash
const funding = await send(token.contract.getFunction('transfer')(caller.address, 1000n))
const forward = await send(caller.contract.getFunction('forward')(token.address, wallets[1]!.address, 7n))
await sealBlocks({ rpc, wallets: wallets.slice(0, 2), rounds: 25 })
const head = await waitForIndexed(app)
const gql = async (query: string, variables?: Record<string, unknown>) => await postGraphql(app, query, variables)

/** The node's transactions touching `address` (sender, recipient or created contract), oldest first. */
async function nodeTransactionsOf (address: string): Promise<string[]> {
  const hashes: string[] = []
  for (let n = 1; n <= head; n++) {
    const block = await rpc.call<{ transactions: Array<{ hash: string, from: string, to: string | null }> }>('eth_getBlockByNumber', ['0x' + n.toString(16), true])
    for (const tx of block.transactions) {
      const receipt = await rpc.call<{ contractAddress: string | null }>('eth_getTransactionReceipt', [tx.hash])
      if ([tx.from, tx.to, receipt.contractAddress].some((a) => a?.toLowerCase() === address)) hashes.push(tx.hash)
    }
  }
  return hashes
}

t.test('address.transactions pages forward and back through cursors, nothing missing or repeated', async (t) => {
  const address = wallets[0]!.address.toLowerCase()
  const expected = await nodeTransactionsOf(address)
  t.ok(expected.length > 40, `${expected.length} transactions to page through`)
  const page = 'edges { cursor node { hash block_number } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }'
  const query = `query ($hash: AddressHash!, $first: Int, $after: String, $last: Int, $before: String) {
    address(hash: $hash) { hash transactions(first: $first, after: $after, last: $last, before: $before) { ${page} } } }`

  const forward: string[] = []
  let after: string | undefined
  for (let pages = 0; ; pages++) {
    const { status, body } = await gql(query, { hash: address, first: 7, after })
    t.equal(status, 200)
    t.notOk(body.errors, 'no errors')
    const connection = body.data.address.transactions
    forward.push(...connection.edges.map((e: any) => e.node.hash))
    t.equal(connection.pageInfo.hasPreviousPage, after !== undefined)
    if (pages === 0) {
      const first = connection.edges[0].node
      t.equal(first.block_number, (await provider.getTransaction(first.hash))!.blockNumber, 'snake_case fields answer under their spelling')
    }
    if (!connection.pageInfo.hasNextPage) break
    after = connection.pageInfo.endCursor
  }
  t.same(forward, [...expected].reverse(), 'newest first, every transaction once')

  const backward: string[] = []
  let before: string | undefined
  for (;;) {
    const { body } = await gql(query, { hash: address, last: 6, before })
    const connection = body.data.address.transactions
    backward.unshift(...connection.edges.map((e: any) => e.node.hash))
    t.equal(connection.pageInfo.hasNextPage, before !== undefined)
    if (!connection.pageInfo.hasPreviousPage) break
    before = connection.pageInfo.startCursor
  }
  t.same(backward, forward, 'last/before walks the same list from the other end')

  const ascending = await gql(`{ address(hash: "${address}") { transactions(first: 100, order: ASC) { edges { node { hash } } } } }`)
  t.same(ascending.body.data.address.transactions.edges.map((e: any) => e.node.hash), expected, 'order: ASC, oldest first')
})

t.test('block(number) matches the node', async (t) => {
  const n = head - 1
  const { body } = await gql(`{ block(number: ${n}) { number hash parentHash parent_hash gasUsed gasLimit nonce timestamp minerHash size
    difficulty totalDifficulty baseFeePerGas isEmpty consensus } }`)
  const node = await rpc.call<Record<string, string>>('eth_getBlockByNumber', ['0x' + n.toString(16), false])
  const signer = await rpc.call<string>('clique_getSigner', [node.hash])
  t.same(body.data.block, {
    number: n,
    hash: node.hash,
    parentHash: node.parentHash,
    parent_hash: node.parentHash,
    gasUsed: BigInt(node.gasUsed!).toString(),
    gasLimit: BigInt(node.gasLimit!).toString(),
    nonce: node.nonce,
    timestamp: new Date(Number(node.timestamp) * 1000).toISOString().replace('Z', '000Z'),
    minerHash: signer.toLowerCase(),
    size: Number(node.size),
    difficulty: BigInt(node.difficulty!).toString(),
    totalDifficulty: BigInt(node.totalDifficulty!).toString(),
    baseFeePerGas: BigInt(node.baseFeePerGas!).toString(),
    isEmpty: (node.transactions as unknown as string[]).length === 0,
    consensus: true
  })
  const missing = await gql(`{ block(number: ${head + 1000}) { hash } }`)
  t.same(missing.body.data, { block: null })
  t.equal(missing.body.errors![0]!.message, `Block number ${head + 1000} was not found.`)
  t.equal(missing.body.errors![0]!.extensions!.code, 'NOT_FOUND')
})

const TRANSACTION_FIELDS = `id hash blockHash blockNumber index fromAddressHash toAddressHash createdContractAddressHash value gas gasPrice gasUsed
  cumulativeGasUsed input nonce r s v status type maxFeePerGas maxPriorityFeePerGas error revertReason hasErrorInInternalTransactions
  block { hash number }`

async function expectTransaction (t: Test, hash: string): Promise<any> {
  const { body } = await gql(`{ transaction(hash: "${hash.toUpperCase().replace('0X', '0x')}") { ${TRANSACTION_FIELDS} } }`)
  t.notOk(body.errors, 'no errors')
  const tx = await rpc.call<Record<string, string>>('eth_getTransactionByHash', [hash])
  const receipt = await rpc.call<Record<string, any>>('eth_getTransactionReceipt', [hash])
  const dec = (h: string | undefined): string | null => h === undefined ? null : BigInt(h).toString()
  t.same(body.data.transaction, {
    id: Buffer.from(`Transaction:${hash}`).toString('base64'),
    hash,
    blockHash: tx.blockHash,
    blockNumber: Number(tx.blockNumber),
    index: Number(tx.transactionIndex),
    fromAddressHash: tx.from,
    toAddressHash: tx.to ?? null,
    createdContractAddressHash: receipt.contractAddress ?? null,
    value: dec(tx.value),
    gas: dec(tx.gas),
    gasPrice: dec(tx.gasPrice),
    gasUsed: dec(receipt.gasUsed),
    cumulativeGasUsed: dec(receipt.cumulativeGasUsed),
    input: tx.input,
    nonce: dec(tx.nonce),
    r: dec(tx.r),
    s: dec(tx.s),
    v: dec(tx.v),
    status: receipt.status === '0x1' ? 'OK' : 'ERROR',
    type: Number(tx.type),
    maxFeePerGas: dec(tx.maxFeePerGas),
    maxPriorityFeePerGas: dec(tx.maxPriorityFeePerGas),
    error: null,
    revertReason: null,
    hasErrorInInternalTransactions: false,
    block: { hash: tx.blockHash, number: Number(tx.blockNumber) }
  })
  return body.data.transaction
}

t.test('transaction(hash) answers every field as the node has it; node(id) finds it again', async (t) => {
  await expectTransaction(t, forward)
  const created = await expectTransaction(t, token.creation)
  t.equal(created.createdContractAddressHash, token.address)
  const again = await gql(`{ node(id: "${created.id}") { id ... on Transaction { hash } } }`)
  t.same(again.body.data.node, { id: created.id, hash: token.creation })
  const missing = await gql(`{ transaction(hash: "0x${'ab'.repeat(32)}") { hash } }`)
  t.equal(missing.body.errors![0]!.message, 'Transaction not found.')
})

t.test('address.transactions answers every field as transaction(hash) does, whichever columns its selection reads', async (t) => {
  const byHash = async (hash: string) => (await gql(`{ transaction(hash: "${hash}") { ${TRANSACTION_FIELDS} } }`)).body.data.transaction
  const list = 'query ($hash: AddressHash!) { address(hash: $hash) { transactions(first: 50) { edges { node { ...F } } } } }'
  const selections = {
    every: `fragment F on Transaction { ${TRANSACTION_FIELDS} }`,
    core: 'fragment F on Transaction { hash blockNumber index fromAddressHash value gasPrice status nonce }',
    some: 'fragment F on Transaction { hash ... on Transaction { input blockHash } revertReason }'
  }
  const expected = new Map<string, any>()
  // The deployer's transactions: contract creations and a call that moved tokens through another contract.
  for (const [name, fragment] of Object.entries(selections)) {
    // Twice: mercurius compiles a query with graphql-jit once it has run once, and both give the loader its selection.
    for (const run of [1, 2]) {
      const { body } = await gql(`${list} ${fragment}`, { hash: deployer.address })
      t.notOk(body.errors, `${name}, run ${run}: no errors`)
      const nodes = body.data.address.transactions.edges.map((e: any) => e.node)
      t.ok(nodes.length >= 3, `${name}, run ${run}: the deployer's transactions`)
      for (const node of nodes) {
        if (!expected.has(node.hash)) expected.set(node.hash, await byHash(node.hash))
        const whole = expected.get(node.hash)
        t.same(node, Object.fromEntries(Object.keys(node).map((k) => [k, whole[k]])), `${name}, run ${run}: ${node.hash} as by hash`)
      }
    }
  }
})

t.test('internal transactions and logs of a transaction match the call trace and the receipt', async (t) => {
  const { body } = await gql(`{ transaction(hash: "${forward}") {
    internal_transactions(first: 10) { edges { node { id index type call_type from_address_hash to_address_hash value gas gas_used input output
      transaction_hash block_number trace_address } } }
    logs(first: 10) { edges { node { index addressHash data firstTopic secondTopic thirdTopic } } } } }`)
  t.notOk(body.errors, 'no errors')
  const trace = await rpc.call<any>('debug_traceTransaction', [forward, { tracer: 'callTracer' }])
  const internal = body.data.transaction.internal_transactions.edges.map((e: any) => e.node)
  t.equal(internal.length, trace.calls.length, 'every call below the transaction\'s own')
  t.match(internal[0], {
    index: 1,
    type: 'CALL',
    call_type: 'CALL',
    from_address_hash: trace.calls[0].from,
    to_address_hash: trace.calls[0].to,
    value: '0',
    gas: BigInt(trace.calls[0].gas).toString(),
    gas_used: BigInt(trace.calls[0].gasUsed).toString(),
    input: trace.calls[0].input,
    output: trace.calls[0].output,
    transaction_hash: forward,
    trace_address: '[0]'
  })
  const node = await gql(`{ node(id: "${internal[0].id}") { ... on InternalTransaction { index transactionHash } } }`)
  t.same(node.body.data.node, { index: 1, transactionHash: forward })
  const receipt = await rpc.call<{ logs: Array<{ logIndex: string, address: string, data: string, topics: string[] }> }>('eth_getTransactionReceipt', [forward])
  t.same(body.data.transaction.logs.edges.map((e: any) => e.node), receipt.logs.map((l) => ({
    index: Number(l.logIndex), addressHash: l.address, data: l.data, firstTopic: l.topics[0], secondTopic: l.topics[1] ?? null, thirdTopic: l.topics[2] ?? null
  })))
})

t.test('token_transfers of a token, newest first, with their token and transaction', async (t) => {
  const { body } = await gql(`{ token_transfers(token_contract_address_hash: "${token.address}", first: 10) {
    edges { node { id amount block_number log_index from_address_hash to_address_hash token_contract_address_hash transaction_hash
      token_ids token { name symbol decimals type totalSupply holderCount contractAddressHash } transaction { hash blockNumber } } }
    pageInfo { hasNextPage } } }`)
  t.notOk(body.errors, 'no errors')
  const transfers = body.data.token_transfers.edges.map((e: any) => e.node)
  t.same(transfers.map((tt: any) => tt.transaction_hash), [forward, funding, token.creation], 'the mint, the funding and the forward, newest first')
  const receipt = await rpc.call<{ logs: Array<{ logIndex: string, topics: string[], data: string, blockNumber: string }> }>('eth_getTransactionReceipt', [forward])
  const log = receipt.logs.find((l) => l.topics.length === 3)!
  t.match(transfers[0], {
    amount: BigInt(log.data).toString(),
    block_number: Number(log.blockNumber),
    log_index: Number(log.logIndex),
    from_address_hash: caller.address,
    to_address_hash: wallets[1]!.address.toLowerCase(),
    token_contract_address_hash: token.address,
    token_ids: null,
    token: { name: 'Graph', symbol: 'GQL', decimals: '18', type: 'ERC-20', totalSupply: (10n ** 21n).toString(), contractAddressHash: token.address },
    transaction: { hash: forward, blockNumber: Number(log.blockNumber) }
  })
  t.equal(body.data.token_transfers.pageInfo.hasNextPage, false)
  const ofAddress = await gql(`{ address(hash: "${caller.address}") { tokenTransfers(first: 5) { edges { node { transactionHash } } } } }`)
  t.same(ofAddress.body.data.address.tokenTransfers.edges.map((e: any) => e.node.transactionHash), [forward, funding], 'sent and received')
})

t.test('addresses(hashes) answers each known address as the node has it', async (t) => {
  const hashes = [wallets[0]!.address, token.address, caller.address]
  const { body } = await gql(`query ($hashes: [AddressHash!]!) { addresses(hashes: $hashes) { hash fetched_coin_balance fetched_coin_balance_block_number
    contract_code nonce transactions_count smart_contract { name } } }`, { hashes })
  t.notOk(body.errors, 'no errors')
  const byHash = new Map(body.data.addresses.map((a: any) => [a.hash, a]))
  for (const hash of hashes) {
    const address: any = byHash.get(hash.toLowerCase())
    t.ok(address, `${hash} answered`)
    t.equal(address.fetched_coin_balance, (await provider.getBalance(hash)).toString())
    t.ok(address.fetched_coin_balance_block_number <= head)
    const code = await provider.getCode(hash)
    t.equal(address.contract_code, code === '0x' ? null : code)
    t.equal(address.smart_contract, null)
  }
  t.equal((byHash.get(wallets[0]!.address.toLowerCase()) as any).nonce, await provider.getTransactionCount(wallets[0]!.address))
  const none = await gql(`{ addresses(hashes: ["0x${'01'.repeat(20)}"]) { hash } }`)
  t.equal(none.body.errors![0]!.message, 'Addresses not found.')
  const unknown = await gql(`{ address(hash: "0x${'01'.repeat(20)}") { hash } }`)
  t.match(unknown.body, { data: { address: null }, errors: [{ message: 'Address not found.', extensions: { code: 'NOT_FOUND' } }] })
})

t.test('token_transfers pages as Blockscout\'s tests page them: first/after with page_info, last with count', async (t) => {
  const query = `query ($token_contract_address_hash: AddressHash!, $first: Int, $after: String, $last: Int, $count: Int) {
    token_transfers(token_contract_address_hash: $token_contract_address_hash, first: $first, after: $after, last: $last, count: $count) {
      page_info { has_next_page has_previous_page } edges { node { transaction_hash id } cursor } } }`
  const pages: any[] = []
  let after: string | undefined
  for (let i = 0; i < 3; i++) {
    const { body } = await gql(query, { token_contract_address_hash: token.address, first: 1, after })
    pages.push(body.data.token_transfers)
    after = body.data.token_transfers.edges[0].cursor
  }
  t.same(pages.map((p) => p.page_info), [
    { has_next_page: true, has_previous_page: false }, { has_next_page: true, has_previous_page: true }, { has_next_page: false, has_previous_page: true }
  ])
  t.same(pages.map((p) => p.edges[0].node.transaction_hash), [forward, funding, token.creation])
  const last = await gql(query, { token_contract_address_hash: token.address, last: 1, count: 3 })
  t.same(last.body.data.token_transfers.edges.map((e: any) => e.node.transaction_hash), [token.creation], 'last: 1 is the oldest')
  const node = await gql(`{ node(id: "${pages[0].edges[0].node.id}") { ... on TokenTransfer { transactionHash } } }`)
  t.same(node.body.data.node, { transactionHash: forward })
})

t.test('GraphiQL\'s introspection query runs within the limits', async (t) => {
  const { getIntrospectionQuery } = await import('graphql')
  const { status, body } = await gql(getIntrospectionQuery())
  t.equal(status, 200)
  t.notOk(body.errors, 'no errors')
  t.ok(body.data.__schema.types.some((type: any) => type.name === 'AddressHash'))
})

t.test('bad input: a malformed hash, too deep, too costly, bad pages, batches', async (t) => {
  const malformed = await gql('{ address(hash: "0x12") { hash } }')
  t.equal(malformed.status, 200, 'GraphQL errors answer 200, as Blockscout')
  t.equal(malformed.body.data, null)
  t.match(malformed.body.errors![0], { message: /AddressHash.*0x and 40 hex digits/, extensions: { code: 'BAD_USER_INPUT' } })
  const asVariable = await gql('query ($h: FullHash!) { transaction(hash: $h) { hash } }', { h: '0xzz' })
  t.match(asVariable.body.errors![0], { message: /FullHash/, extensions: { code: 'BAD_USER_INPUT' } })

  const address = wallets[0]!.address
  const deep = await gql(`{ address(hash: "${address}") { transactions(first: 1) { edges { node { fromAddress { transactions(first: 1) {
    edges { node { fromAddress { hash } } } } } } } } } }`)
  t.notOk(deep.body.errors, 'depth 10 is allowed')
  const deeper = await gql(`{ address(hash: "${address}") { transactions(first: 1) { edges { node { fromAddress { transactions(first: 1) {
    edges { node { fromAddress { smartContract { name } } } } } } } } } } }`)
  t.match(deeper.body, { data: null, errors: [{ message: 'Query depth limit of 10 exceeded, found 11.', extensions: { code: 'QUERY_TOO_DEEP' } }] })
  const costly = await gql(`{ address(hash: "${address}") { transactions(first: 100) { edges { node { internalTransactions(first: 100) {
    edges { node { index } } } } } } } }`)
  t.match(costly.body, { data: null, errors: [{ message: /^Operation is too complex: complexity is \d+ and maximum is 2500$/, extensions: { code: 'QUERY_TOO_COMPLEX' } }] })
  // One query text, its cost set by its variables: each request is judged by its own (costs are kept per document and variables).
  const byVariables = `query ($n: Int) { address(hash: "${address}") { transactions(first: $n) { edges { node { internalTransactions(first: $n) {
    edges { node { index } } } } } } } }`
  for (const [n, tooCostly] of [[2, false], [100, true], [2, false], [100, true]] as const) {
    const answer = await gql(byVariables, { n })
    if (tooCostly) t.match(answer.body, { data: null, errors: [{ message: /^Operation is too complex: complexity is 30201 and maximum is 2500$/ }] }, `first: ${n}`)
    else t.notOk(answer.body.errors, `first: ${n} is allowed`)
  }

  const cases: Array<[string, RegExp]> = [
    ['transactions { edges { cursor } }', /You must either supply `:first` or `:last`/],
    ['transactions(first: 101) { edges { cursor } }', /between 0 and 100/],
    ['transactions(first: 1, after: "bogus") { edges { cursor } }', /Invalid cursor provided as `after` argument/]
  ]
  for (const [field, message] of cases) {
    const { body } = await gql(`{ address(hash: "${address}") { hash ${field} } }`)
    t.match(body.errors![0], { message, extensions: { code: 'BAD_USER_INPUT' } }, field)
    t.equal(body.data.address.hash, address.toLowerCase(), 'the rest of the query still answers')
  }
  const unknownField = await gql('{ block(number: 1) { bogus } }')
  t.match(unknownField.body.errors![0], { message: /Cannot query field "bogus"/, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })
  const syntax = await gql('{ block(number: 1) { hash }')
  t.match(syntax.body.errors![0], { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })
  // mercurius tries a query that does not parse as a JSON-encoded AST: `0` and `{}` then reach the hooks as values.
  for (const query of ['0', '{}', '[]']) {
    const notDocument = await gql(query)
    t.equal(notDocument.status, 200, query)
    t.match(notDocument.body.errors![0], { message: /^Syntax Error/, extensions: { code: 'GRAPHQL_PARSE_FAILED' } }, `${query} is a syntax error`)
  }
  const noQuery = await app.inject({ method: 'GET', url: '/api/v2/graphql' })
  t.equal(noQuery.statusCode, 400, 'a GET without a query')
  t.equal(noQuery.json().errors[0].extensions.code, 'BAD_REQUEST')
  const badVariables = await app.inject({ method: 'GET', url: `/api/v2/graphql?query=${encodeURIComponent('{ block(number: 1) { hash } }')}&variables=NaN` })
  t.equal(badVariables.statusCode, 400, 'variables that are not JSON')
  t.equal(badVariables.json().errors[0].extensions.code, 'BAD_REQUEST')

  const batch = await app.inject({ method: 'POST', url: '/api/v2/graphql', payload: [{ query: '{ block(number: 1) { hash } }' }, { query: '{ block(number: 2) { hash } }' }] })
  t.equal(batch.statusCode, 400)
  t.same(batch.json().errors[0].message, 'Max batch size is 1')
  const notJson = await app.inject({ method: 'POST', url: '/api/v2/graphql', headers: { 'content-type': 'application/json' }, payload: '{"query":' })
  t.equal(notJson.statusCode, 400)
  t.equal(notJson.json().errors[0].extensions.code, 'BAD_REQUEST')
  const huge = await app.inject({ method: 'POST', url: '/api/v2/graphql', payload: { query: `{ block(number: 1) { hash } } #${'x'.repeat(200_000)}` } })
  t.equal(huge.statusCode, 413)
})

t.test('50 transactions with their blocks, addresses, calls and logs cost a bounded number of SQL statements', async (t) => {
  const { result: { body }, texts } = await captureStatements(async () => await gql(`{ address(hash: "${wallets[0]!.address}") { transactions(first: 50) { edges { node {
    hash block { number hash } fromAddress { hash fetchedCoinBalance } toAddress { hash } hasErrorInInternalTransactions
    internalTransactions(first: 2) { edges { node { index } } } logs(first: 2) { edges { node { index } } } } } } } }`))
  t.notOk(body.errors, 'no errors')
  const nodes = body.data.address.transactions.edges.map((e: any) => e.node)
  t.equal(nodes.length, 49)
  t.ok(nodes.every((n: any) => n.block.number > 0 && n.fromAddress.hash !== undefined), 'every transaction has its block and sender')
  t.equal(texts.length, 7, 'the address with its transactions, then one statement per edge: block, sender, recipient, internal error flag, calls, logs')
  t.notOk(texts.some((text) => text.includes('contract_code')), 'no contract code is read when none is asked for')
  const page = texts.find((text) => text.includes('from transactions where "from"'))!
  t.notOk(/encode\(t\.input|join blocks|max_fee_per_gas/.test(page), 'the page reads no input, block hash or fee caps when none is asked for')

  // Asked for, the code is one statement more per edge, for all 50 senders and for all 50 recipients.
  const withCode = await captureStatements(async () => await gql(`{ address(hash: "${wallets[0]!.address}") { transactions(first: 50) { edges { node {
    fromAddress { hash contractCode } toAddress { hash contractCode } } } } } }`))
  t.notOk(withCode.result.body.errors, 'no errors')
  t.equal(withCode.texts.length, 5, 'the address with its transactions, senders, recipients, then the senders\' code and the recipients\' code')
})

t.test('address(hash) reads its one transactions page in the same statement, and answers as the loader does', async (t) => {
  const counted = async (query: string) => {
    const { result, texts } = await captureStatements(async () => await gql(query))
    return { body: result.body, statements: texts.length }
  }
  const page = '{ edges { cursor node { hash input } } pageInfo { hasNextPage hasPreviousPage endCursor } }'
  const address = wallets[0]!.address.toLowerCase()
  const alone = await counted(`{ address(hash: "${address}") { hash fetchedCoinBalance transactionsCount transactions(first: 5) ${page} } }`)
  t.equal(alone.statements, 1, 'one statement')
  // The address's columns come back on one of its rows, not on each (a third of the fields parsed for a page).
  const [statement] = (await captureStatements(async () => await gql(`{ address(hash: "${address}") { hash transactions(first: 5) ${page} } }`))).statements
  const rows = await createPreparedStatements({ knex: app.db.knex, pool: app.db.prepared }).rows<Record<string, unknown>>(statement!.text, statement!.values)
  t.equal(rows.length, 6, 'the page and one more row, to tell whether another follows')
  t.equal(rows.filter((r) => r.address_hash !== null).length, 1, 'the address\'s columns on one row')
  t.equal(rows.filter((r) => r.address_coin_balance !== null).length, 1)
  // addresses(hashes) reads each address, then their pages through the loader.
  const loaded = await counted(`{ addresses(hashes: ["${address}"]) { hash fetchedCoinBalance transactionsCount transactions(first: 5) ${page} } }`)
  t.equal(loaded.statements, 2, 'the addresses, then their pages')
  t.notOk(alone.body.errors || loaded.body.errors, 'no errors')
  t.same(alone.body.data.address, loaded.body.data.addresses[0], 'the same address and page either way')
  t.equal(alone.body.data.address.transactions.edges.length, 5)

  const two = await counted(`{ address(hash: "${address}") { a: transactions(first: 2) ${page} b: transactions(first: 3) ${page} } }`)
  t.same(two.body.data.address.a.edges, alone.body.data.address.transactions.edges.slice(0, 2), 'two pages under aliases: each its own')
  t.same(two.body.data.address.b.edges, alone.body.data.address.transactions.edges.slice(0, 3))
  t.equal(two.statements, 3, 'the address, then one statement per page')

  const unknown = await gql(`{ address(hash: "0x${'5a'.repeat(20)}") { hash transactions(first: 5) ${page} } }`)
  t.same(unknown.body.data, { address: null })
  t.equal(unknown.body.errors![0]!.message, 'Address not found.')
  const bad = await gql(`{ address(hash: "${address}") { hash transactions(first: 5, after: "tampered") ${page} } }`)
  t.equal(bad.body.errors![0]!.message, 'Invalid cursor provided as `after` argument', 'bad page arguments answer the field\'s error')
  t.equal(bad.body.data.address.hash, address, 'and the address still answers')

  // An address the index knows that took part in no transaction: the page is empty, the address is there.
  const idle = await app.db.knex('addresses').where('transaction_count', 0).first('hash')
  t.ok(idle, 'the index holds an address without transactions')
  const hash = `0x${(idle!.hash as Buffer).toString('hex')}`
  const empty = await gql(`{ address(hash: "${hash}") { hash transactions(first: 5) ${page} } }`)
  t.notOk(empty.body.errors, 'no errors')
  t.same(empty.body.data.address, { hash, transactions: { edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, endCursor: null } } })
})

t.test('/api/v1/graphql answers as /api/v2/graphql; /schema.graphql, /graphiql and /api-docs', async (t) => {
  const query = '{ block(number: 1) { hash } }'
  t.same((await postGraphql(app, query, undefined, '/api/v1/graphql')).body, (await gql(query)).body)
  const get = await app.inject({ method: 'GET', url: `/api/v1/graphql?query=${encodeURIComponent(query)}` })
  t.same(get.json(), (await gql(query)).body, 'GET with ?query= too')
  const sdl = await app.inject({ method: 'GET', url: '/schema.graphql' })
  t.match(sdl.body, /type Transaction implements Node/)
  t.equal((await app.inject({ method: 'GET', url: '/graphiql' })).statusCode, 200)
  t.match((await app.inject({ method: 'GET', url: '/graphiql/config.js' })).body, 'window.GRAPHQL_ENDPOINT = \'/api/v2/graphql\'', 'GraphiQL queries /api/v2/graphql')
  const docs = (await app.inject({ method: 'GET', url: '/api-docs/json' })).json()
  t.ok(docs.paths['/api/v2/graphql'], '/api-docs lists the GraphQL endpoint')
})

t.test('subscriptions hear a new transaction, its block and token transfers within 2 s of the block', async (t) => {
  const wsUrl = url.replace('http', 'ws') + '/api/v2/graphql'
  const [transactions, blocks, transfers] = await Promise.all([
    subscribeGraphql(wsUrl, 'subscription { newTransaction { hash blockNumber fromAddressHash block { hash } } }'),
    subscribeGraphql(wsUrl, 'subscription { newBlock { number hash } }'),
    subscribeGraphql(wsUrl, `subscription { token_transfers(token_contract_address_hash: "${token.address.toUpperCase().replace('0X', '0x')}") { amount transaction_hash } }`)
  ])
  t.teardown(() => { for (const s of [transactions, blocks, transfers]) s.close() })
  const sent = await token.contract.getFunction('transfer')(wallets[0]!.address, 3n)
  const receipt = await waitForReceipt(provider, sent.hash)
  const sealedAt = Date.now()
  const [tx, block, transfer] = await Promise.all([transactions.next(), blocks.next(), transfers.next()])
  t.ok(Date.now() - sealedAt < 2000, `heard within 2 s of the block (${Date.now() - sealedAt} ms after the receipt)`)
  t.same(tx.payload.data.newTransaction, { hash: sent.hash, blockNumber: receipt.blockNumber, fromAddressHash: deployer.address.toLowerCase(), block: { hash: receipt.blockHash } })
  t.same(block.payload.data.newBlock, { number: receipt.blockNumber, hash: receipt.blockHash })
  t.same(transfer.payload.data.token_transfers, [{ amount: '3', transaction_hash: sent.hash }])

  const invalid = await subscribeGraphql(wsUrl, 'subscription { newBlock { bogus } }')
  t.teardown(() => invalid.close())
  t.match(await invalid.next(), { type: 'error', payload: [{ message: /Cannot query field "bogus"/ }] }, 'an invalid subscription is refused')
})
