// The REST lists read a deep page for what the first page costs: each query is
// run on a filled database with EXPLAIN (ANALYZE, BUFFERS), at the head and
// near the tail, and the pages of data each touches are compared.
import t from 'tap'
import knex, { type Knex } from 'knex'
import { migrationSource } from '../../../core/db/migrations/index.ts'
import { TOKEN_TYPES } from '../../../core/rows.ts'
import { ITEM_KINDS, type AdvancedFilter, type AdvancedFilterCursor } from '../../../core/queries/search/advanced-filters.ts'
import { createTestDatabase } from '../../support/database.ts'
import { createQueries, type Queries } from '../../../core/queries/index.ts'

const BLOCKS = 20_000
const HELD_IDS = 20_000
const DEEP_BLOCK = 100
const address = (byte: string) => Buffer.from(byte.repeat(20), 'hex')
const [SENDER, RECEIVER, CONTRACT, ERC20, ERC1155, ERC721, COLLECTOR] = ['aa', 'bb', 'cc', 'd2', 'd3', 'd7', 'ee'].map(address) as [Buffer, Buffer, Buffer, Buffer, Buffer, Buffer, Buffer]

const db = knex({ client: 'pg', connection: await createTestDatabase(t), pool: { min: 0, max: 1 } })
t.teardown(async () => await db.destroy())
await db.migrate.latest({ migrationSource })
await fill(db)
const queries = createQueries({ knex: db })

/**
 * Per block one transaction with three listed internal calls (and its own
 * top-level call), an ERC-20 transfer, an ERC-1155 batch of three and two
 * logs; an ERC-721 transfer every 100 blocks (a sparse type). The collector
 * holds ${HELD_IDS} ids of the ERC-721 and of the ERC-1155 token, and some ERC-20.
 */
async function fill (db: Knex): Promise<void> {
  const hash = (prefix: string) => `decode('${prefix}' || lpad(to_hex(n), 62, '0'), 'hex')`
  await db.raw(`insert into blocks select n, ${hash('b0')}, ${hash('b1')}, to_timestamp(n), ?, ?, 30000000, 21000, 7, 600, '\\x0000000000000000',
    1, n, '\\x', 1, 4 from generate_series(0, ${BLOCKS}) n`, [address('00'), SENDER])
  await db.raw(`insert into transactions select ${hash('f0')}, n, 0, ?, ?, 1, 21000, null, 10, 1, 2, n, '\\x', 1, 21000, 21000, 8
    from generate_series(1, ${BLOCKS}) n`, [SENDER, CONTRACT])
  await db.raw(`insert into internal_transactions select n, 0, i, ${hash('f0')}, 'call', case when i = 0 then ?::bytea else ?::bytea end, case when i = 0 then ?::bytea else ?::bytea end,
    1, 1000, 500, '\\x', null, null, case when i = 0 then '{}'::integer[] else array[i - 1] end, null
    from generate_series(1, ${BLOCKS}) n, generate_series(0, 3) i`, [SENDER, CONTRACT, CONTRACT, RECEIVER])
  await db.raw(`insert into token_transfers select n, 0, 0, ${hash('f0')}, 0, ?, 'ERC-20', ?, ?, 5, null from generate_series(1, ${BLOCKS}) n`, [ERC20, SENDER, RECEIVER])
  await db.raw(`insert into token_transfers select n, 1, i, ${hash('f0')}, 0, ?, 'ERC-1155', ?, ?, 1, i from generate_series(1, ${BLOCKS}) n, generate_series(0, 2) i`,
    [ERC1155, CONTRACT, RECEIVER])
  await db.raw(`insert into token_transfers select n, 2, 0, ${hash('f0')}, 0, ?, 'ERC-721', ?, ?, 1, n from generate_series(100, ${BLOCKS}, 100) n`, [ERC721, SENDER, RECEIVER])
  await db.raw(`insert into logs select n, l, ${hash('f0')}, 0, case when l = 0 then ?::bytea else ?::bytea end, ${hash('e0')}, null, null, null, '\\x'
    from generate_series(1, ${BLOCKS}) n, generate_series(0, 1) l`, [ERC20, ERC1155])
  await db.raw('insert into tokens (address, type, first_block, updated_block) values (?, \'ERC-20\', 1, 1), (?, \'ERC-1155\', 1, 1), (?, \'ERC-721\', 1, 1)',
    [ERC20, ERC1155, ERC721])
  // Balances (and through their triggers token_holdings) need the tokens' types.
  await db.raw(`insert into token_balances (token_address, holder, token_id, value)
    select ?::bytea, ?::bytea, n, 1 from generate_series(1, ${HELD_IDS}) n
    union all select ?::bytea, ?::bytea, n, 2 from generate_series(1, ${HELD_IDS}) n
    union all select ?::bytea, ?::bytea, -1, 5`, [ERC721, COLLECTOR, ERC1155, COLLECTOR, ERC20, COLLECTOR])
  await db.raw('insert into addresses (hash, contract_code) values (?, null), (?, null), (?, \'\\x00\')', [SENDER, RECEIVER, CONTRACT])
  await db.raw('analyze')
}

/** Shared buffers (pages of 8 KiB) the query `run` sends touches, read with EXPLAIN (ANALYZE, BUFFERS). */
async function pagesTouched (run: (queries: Queries) => Promise<unknown>): Promise<{ buffers: number, plan: string, discarded: number, discardedByWalk: number }> {
  const sent: Array<{ sql: string, bindings: unknown[] }> = []
  const listener = (q: { sql: string, bindings: unknown[] }) => { sent.push(q) }
  db.on('query', listener)
  try {
    await run(queries)
  } finally {
    db.off('query', listener)
  }
  // The list's query, as sent ($n placeholders): explained on a connection of its own.
  const list = sent[sent.length - 1]!
  const connection = await db.client.acquireConnection() as { query (sql: string, values: unknown[]): Promise<{ rows: any[] }> }
  const { rows } = await connection.query(`explain (analyze, buffers, format json) ${list.sql}`, list.bindings).finally(() => db.client.releaseConnection(connection))
  const root = rows[0]['QUERY PLAN'][0].Plan
  const plan = JSON.stringify(root)
  return { buffers: root['Shared Hit Blocks'] + root['Shared Read Blocks'], plan, discarded: discardedRows(root), discardedByWalk: discardedByWalk(root) }
}

type PlanNode = { 'Node Type': string, 'Parent Relationship'?: string, 'Rows Removed by Filter'?: number, Plans?: PlanNode[] }

/** Rows nodes read only to drop them; a loose index scan's CTE drops its one closing null by design. */
function discardedRows (node: PlanNode): number {
  const own = node['Node Type'] === 'CTE Scan' ? 0 : node['Rows Removed by Filter'] ?? 0
  return own + (node.Plans ?? []).reduce((sum, child) => sum + discardedRows(child), 0)
}

/** The same, leaving out sub-plans: per-item probes of the page's own rows (is it a contract, is its log a batch), not the list's walk. */
function discardedByWalk (node: PlanNode): number {
  if (node['Parent Relationship'] === 'SubPlan') return 0
  const own = node['Node Type'] === 'CTE Scan' ? 0 : node['Rows Removed by Filter'] ?? 0
  return own + (node.Plans ?? []).reduce((sum, child) => sum + discardedByWalk(child), 0)
}

const BIG_TABLES = ['blocks', 'transactions', 'internal_transactions', 'token_transfers', 'logs', 'token_balances', 'token_holdings']
/** Tables read by a sequential scan anywhere in the plan (tokens and addresses are a few rows here: scanning them is right). */
const scannedTables = (plan: string): string[] => [...plan.matchAll(/"Node Type":"Seq Scan"[^}]*?"Relation Name":"([a-z_]+)"/g)].map((m) => m[1]!)

const deepInternal = { blockNumber: DEEP_BLOCK, transactionIndex: 0, index: 0 }
const deepTransfer = { blockNumber: DEEP_BLOCK, logIndex: 0, batchIndex: 0 }
const everything: AdvancedFilter = { kinds: ITEM_KINDS, tokenTypes: TOKEN_TYPES, relation: 'or' }
const deepAdvanced: AdvancedFilterCursor = { blockNumber: DEEP_BLOCK, transactionIndex: 0, internalIndex: null, transferIndex: null, batchIndex: null }
const deepAdvancedTransfer = { ...deepAdvanced, transferIndex: 1, batchIndex: 1 }
const advanced = (filter: Partial<AdvancedFilter>, cursor = deepAdvanced) => (deep: boolean) => async (queries: Queries) =>
  await queries.listAdvancedFilterItems({ filter: { ...everything, ...filter }, cursor: deep ? cursor : undefined })
const lists: Array<[string, (cursor: boolean) => (queries: Queries) => Promise<unknown>]> = [
  // Transactions, internal transactions and token transfers merged: each source from its own index.
  ['the advanced filter', advanced({})],
  ['the advanced filter, after a transfer', advanced({}, deepAdvancedTransfer)],
  ['the advanced filter of a receiver', advanced({ toInclude: [RECEIVER] })],
  ['the advanced filter of a sender and a receiver', advanced({ fromInclude: [SENDER], toInclude: [RECEIVER], relation: 'and' })],
  ['the advanced filter of a sparse token type', advanced({ kinds: [], tokenTypes: ['ERC-721'] })],
  ['the advanced filter of a token', advanced({ kinds: [], tokensInclude: [ERC1155] })],
  ['internal transactions', (deep) => async (queries) => await queries.listInternalTransactions({ transaction: undefined, cursor: deep ? deepInternal : undefined })],
  ['an address\'s internal transactions (from)', (deep) => async (queries) => await queries.listAddressInternalTransactions({ address: CONTRACT, filter: 'from', cursor: deep ? deepInternal : undefined })],
  ['an address\'s internal transactions (all sides)', (deep) => async (queries) => await queries.listAddressInternalTransactions({ address: RECEIVER, filter: undefined, cursor: deep ? deepInternal : undefined })],
  ['token transfers', (deep) => async (queries) => await queries.listTokenTransfers({ types: undefined, cursor: deep ? deepTransfer : undefined })],
  ['token transfers of a sparse type', (deep) => async (queries) => await queries.listTokenTransfers({ types: ['ERC-721'], cursor: deep ? deepTransfer : undefined })],
  ['token transfers of two types', (deep) => async (queries) => await queries.listTokenTransfers({ types: ['ERC-20', 'ERC-721'], cursor: deep ? deepTransfer : undefined })],
  ['a token\'s transfers', (deep) => async (queries) => await queries.listTokenContractTransfers({ token: ERC1155, cursor: deep ? deepTransfer : undefined })],
  ['an address\'s token transfers', (deep) => async (queries) => await queries.listAddressTokenTransfers({ address: RECEIVER, options: {}, cursor: deep ? deepTransfer : undefined })],
  ['an address\'s logs', (deep) => async (queries) => await queries.listAddressLogs({ address: ERC20, topic: undefined, cursor: deep ? { blockNumber: DEEP_BLOCK, index: 0 } : undefined })],
  // One type each: the list's last statement is the one explained.
  ['an address\'s ERC-721 ids', (deep) => async (queries) => await queries.listAddressNfts({ holder: COLLECTOR, types: ['ERC-721'], cursor: deep ? { tokenAddress: ERC721, tokenId: String(DEEP_BLOCK), type: 'ERC-721' } : undefined })],
  // Each instance's owner is a probe of token_balances by (token, id): not a walk over the token's holders.
  ['a token\'s NFT instances', (deep) => async (queries) => await queries.listTokenInstances({ token: ERC721, before: deep ? String(DEEP_BLOCK * 10) : undefined })],
  ['an address\'s ERC-1155 ids', (deep) => async (queries) => await queries.listAddressNfts({ holder: COLLECTOR, types: ['ERC-1155'], cursor: deep ? { tokenAddress: ERC1155, tokenId: String(DEEP_BLOCK), type: 'ERC-1155' } : undefined })]
]

for (const [name, query] of lists) {
  t.test(`${name}: a page near the tail touches no more than the first`, async (t) => {
    const first = await pagesTouched(query(false))
    const deep = await pagesTouched(query(true))
    t.ok(deep.buffers <= first.buffers * 1.5 + 10, `deep page ${deep.buffers} buffers, first page ${first.buffers}`)
    // An index in the list's order hands over the page's rows: none is read only to be dropped.
    if (name.startsWith('the advanced filter')) t.equal(first.discardedByWalk + deep.discardedByWalk, 0, 'no row of the walk read and filtered out')
    else t.equal(first.discarded + deep.discarded, 0, 'no row read and filtered out')
    t.ok(scannedTables(first.plan).length > 0 || !first.plan.includes('Seq Scan'), 'the plan reader finds sequential scans')
    t.same(scannedTables(deep.plan).filter((table) => BIG_TABLES.includes(table)), [], 'no sequential scan of a chain table')
  })
}

// Every block here has one signer and the logs two addresses, as on a clique
// chain with a token or two: a probe that takes the address from the outer row
// is planned for "any address", expected to match at once, and scans them all.
t.test('an address\'s detail probes blocks, logs and balances by index, not by scanning', async (t) => {
  // Not the signer, no logs: the probes must find nothing fast. (For the signer a scan matches at its first row.)
  for (const who of [RECEIVER, CONTRACT]) {
    const { plan } = await pagesTouched(async (queries) => await queries.findAddress(who))
    t.same(scannedTables(plan).filter((table) => BIG_TABLES.includes(table)), [], `0x${who.toString('hex').slice(0, 8)}: no sequential scan of a chain table`)
  }
  t.match(await queries.findAddress(SENDER), { has_validated_blocks: true, has_logs: false }, 'the signer has validated blocks')
  t.match(await queries.findAddress(RECEIVER), { has_validated_blocks: false, has_logs: false, has_tokens: false }, 'a plain address has none')
})

// The Etherscan-style lists page by offset, not by cursor: a page reads what
// lies before it on each side, up to the 10,000-row window. What matters is
// that each reads an index of the address (or of the block range) in the
// page's order, whichever order is asked, and never scans a chain table.
const ALL_BLOCKS = { from: 0, to: Number.MAX_SAFE_INTEGER }
const FEW_BLOCKS = { from: 5000, to: 5100 }
const window = (sort: 'asc' | 'desc') => ({ sort, skip: 20, limit: 10 })
const etherscanLists: Array<[string, (queries: Queries) => Promise<unknown[]>, number?]> = [
  ['txlist, oldest first', async (queries) => await queries.etherscan.listAccountTransactions({ address: SENDER, range: ALL_BLOCKS, window: window('asc') })],
  ['txlist, newest first, in a block range', async (queries) => await queries.etherscan.listAccountTransactions({ address: CONTRACT, range: FEW_BLOCKS, window: window('desc') })],
  ['txlistinternal of an address', async (queries) => await queries.etherscan.listAccountInternalTransactions({ selection: { address: RECEIVER, range: ALL_BLOCKS }, window: window('asc') })],
  ['txlistinternal of a block range', async (queries) => await queries.etherscan.listAccountInternalTransactions({ selection: { range: FEW_BLOCKS }, window: window('desc') })],
  ['tokentx of an address', async (queries) => await queries.etherscan.listAccountTokenTransfers({ standard: 'ERC-20', selection: { address: RECEIVER, range: ALL_BLOCKS }, window: window('asc') })],
  ['token1155tx of a token', async (queries) => await queries.etherscan.listAccountTokenTransfers({ standard: 'ERC-1155', selection: { token: ERC1155, range: FEW_BLOCKS }, window: window('desc') })],
  ['getLogs of an address', async (queries) => await queries.etherscan.listEtherscanLogs({ selection: { address: ERC20, topics: [], from: 0, to: Number.MAX_SAFE_INTEGER }, window: window('asc') })],
  // Both logs of block 5050 carry its topic (fill: e0 and the block number).
  ['getLogs by topic in a block range', async (queries) => await queries.etherscan.listEtherscanLogs({
    selection: {
      topics: [{ position: 0, value: Buffer.from('e0' + (5050).toString(16).padStart(62, '0'), 'hex'), join: 'and' }], ...FEW_BLOCKS
    },
    window: { sort: 'asc', skip: 0, limit: 10 }
  }), 2]
]

for (const [name, query, rows = 10] of etherscanLists) {
  t.test(`Etherscan-style ${name}: read from an index in the page's order, no chain table scanned`, async (t) => {
    const { plan, buffers } = await pagesTouched(query)
    t.same(scannedTables(plan).filter((table) => BIG_TABLES.includes(table)), [], 'no sequential scan of a chain table')
    t.ok(buffers < 400, `${buffers} buffers for a page of 10`)
    t.equal((await query(queries)).length, rows, 'the rows asked for')
  })
}
