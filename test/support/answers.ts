// The gateway's answers to a fixed set of read requests on the activity chain
// (activity-chain.ts): REST lists walked page by page through their cursors,
// details, search, tokens, NFTs, logs, internal transactions, coin balances,
// GraphQL queries with their cursors, Etherscan-style module/actions, and the
// Phoenix socket's pushes for the chain's blocks replayed. A refactoring of the
// read model must leave every answer byte for byte as it was: record them with
// the old code and the new on the same chain (one tap run shares its template,
// see fixture-template.ts) and compare the files (test/answers.test.ts).
import { writeFile } from 'node:fs/promises'
import type { FastifyInstance } from 'fastify'
import WebSocket from 'ws'
import { readCommittedBlocks } from '../../core/indexer/commit-feed.ts'

/** One request and what the gateway answered, its body as sent. */
export type Answer = { request: string, status: number, body: string }

/** What the requests are built from: the activity chain's addresses and transactions. */
export type AnswerChain = {
  head: number
  accounts: string[]
  contracts: { token: string, nft: string, multi: string, caller: string, fanout: string }
  payees: string[]
}

/** Pages walked of each list at most: enough for every list of the activity chain to reach a cursor. */
const MAX_PAGES = 3
/** The socket is quiet this long after the last push: every broadcast has been sent. */
const SOCKET_QUIET_MS = 1500

type Recorder = { answers: Answer[], get (path: string): Promise<any> }

function createRecorder (app: FastifyInstance): Recorder {
  const answers: Answer[] = []
  return {
    answers,
    async get (path) {
      const response = await app.inject({ method: 'GET', url: path })
      answers.push({ request: `GET ${path}`, status: response.statusCode, body: response.body })
      try {
        return JSON.parse(response.body)
      } catch {
        return undefined
      }
    }
  }
}

const withParams = (path: string, params: Record<string, unknown>): string => {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString()
  return `${path}${path.includes('?') ? '&' : '?'}${query}`
}

/** Walks a Blockscout list through next_page_params; returns its items. */
async function walk (r: Recorder, path: string): Promise<any[]> {
  const items: any[] = []
  let url = path
  for (let page = 0; page < MAX_PAGES; page++) {
    const body = await r.get(url)
    if (!Array.isArray(body?.items)) break
    items.push(...body.items)
    if (body.next_page_params === null || body.next_page_params === undefined) break
    url = withParams(path, body.next_page_params)
  }
  return items
}

async function recordRest (r: Recorder, chain: AnswerChain): Promise<void> {
  const v2 = '/api/v2'
  const blocks = await walk(r, `${v2}/blocks`)
  for (const n of [0, 1, 2, Math.floor(chain.head / 2), chain.head]) {
    await r.get(`${v2}/blocks/${n}`)
    await walk(r, `${v2}/blocks/${n}/transactions`)
    await r.get(`${v2}/blocks/${n}/internal-transactions`)
  }
  if (blocks[0] !== undefined) await r.get(`${v2}/blocks/${blocks[0].hash}`)
  const transactions = await walk(r, `${v2}/transactions`)
  for (const { hash } of transactions) {
    await r.get(`${v2}/transactions/${hash}`)
    await r.get(`${v2}/transactions/${hash}/logs`)
    await r.get(`${v2}/transactions/${hash}/token-transfers`)
    await r.get(`${v2}/transactions/${hash}/internal-transactions`)
  }
  for (const { hash } of transactions.slice(0, 12)) {
    await r.get(`${v2}/transactions/${hash}/state-changes`)
    await r.get(`${v2}/transactions/${hash}/summary`)
    await r.get(`${v2}/transactions/${hash}/raw-trace`)
  }
  await walk(r, `${v2}/token-transfers`)
  await walk(r, `${v2}/internal-transactions`)
  await walk(r, `${v2}/addresses`)
  await r.get(`${v2}/main-page/blocks`)
  await r.get(`${v2}/main-page/transactions`)
  const addresses = [...chain.accounts, ...Object.values(chain.contracts), ...chain.payees.slice(0, 2)]
  for (const address of addresses) {
    const a = `${v2}/addresses/${address}`
    for (const tail of ['', '/counters', '/tabs-counters', '/coin-balance-history-by-day', '/token-balances', '/nft/collections']) await r.get(a + tail)
    for (const list of ['/transactions', '/token-transfers', '/internal-transactions', '/logs', '/coin-balance-history', '/tokens', '/nft']) await walk(r, a + list)
  }
  for (const address of Object.values(chain.contracts)) await r.get(`${v2}/smart-contracts/${address}`)
  await walk(r, `${v2}/tokens`)
  for (const token of [chain.contracts.token, chain.contracts.nft, chain.contracts.multi]) {
    const tk = `${v2}/tokens/${token}`
    await r.get(tk)
    await r.get(`${tk}/counters`)
    await walk(r, `${tk}/holders`)
    await walk(r, `${tk}/transfers`)
    const instances = await walk(r, `${tk}/instances`)
    for (const { id } of instances.slice(0, 3)) {
      await r.get(`${tk}/instances/${id}`)
      await walk(r, `${tk}/instances/${id}/transfers`)
      await walk(r, `${tk}/instances/${id}/holders`)
      await r.get(`${tk}/instances/${id}/transfers-count`)
    }
  }
  for (const q of ['Activity', 'ACT', chain.contracts.token, chain.accounts[0]!, transactions[0]?.hash ?? '0x', String(chain.head)]) {
    await r.get(withParams(`${v2}/search`, { q }))
    await r.get(withParams(`${v2}/search/quick`, { q }))
  }
  await walk(r, `${v2}/advanced-filters`)
}

const TRANSACTION_FIELDS = 'hash blockNumber index status value gas gasPrice gasUsed cumulativeGasUsed fromAddressHash toAddressHash createdContractAddressHash input nonce type maxFeePerGas maxPriorityFeePerGas error revertReason blockHash'

async function recordGraphql (app: FastifyInstance, r: Recorder, chain: AnswerChain, hashes: string[]): Promise<void> {
  const post = async (query: string, variables: Record<string, unknown>): Promise<any> => {
    const body = JSON.stringify({ query, variables })
    const response = await app.inject({ method: 'POST', url: '/api/v2/graphql', headers: { 'content-type': 'application/json' }, payload: body })
    r.answers.push({ request: `POST /api/v2/graphql ${body}`, status: response.statusCode, body: response.body })
    return JSON.parse(response.body)
  }
  for (const n of [0, 1, Math.floor(chain.head / 2), chain.head]) {
    await post('query ($n: Int!) { block(number: $n) { hash number parentHash minerHash gasUsed gasLimit timestamp size nonce totalDifficulty baseFeePerGas isEmpty } }', { n })
  }
  for (const hash of hashes) {
    await post(`query ($h: FullHash!) { transaction(hash: $h) { ${TRANSACTION_FIELDS}
      block { number hash }
      logs(first: 3) { edges { cursor node { index addressHash data firstTopic secondTopic thirdTopic fourthTopic blockNumber transactionHash } } pageInfo { hasNextPage endCursor } }
      internalTransactions(first: 3) { edges { cursor node { index callType type value gas gasUsed input output error traceAddress fromAddressHash toAddressHash createdContractAddressHash transactionHash blockNumber transactionIndex } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
      fromAddress { hash fetchedCoinBalance nonce transactionsCount } } }`, { h: hash })
  }
  const transfers = 'edges { cursor node { amount amounts tokenIds blockNumber logIndex fromAddressHash toAddressHash tokenContractAddressHash transactionHash token { name symbol type decimals totalSupply holderCount contractAddressHash } } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }'
  for (const address of [...chain.accounts, chain.contracts.caller, chain.contracts.token]) {
    let after: string | null = null
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer: any = await post(`query ($a: AddressHash!, $after: String) { address(hash: $a) { hash fetchedCoinBalance fetchedCoinBalanceBlockNumber nonce gasUsed transactionsCount tokenTransfersCount
        transactions(first: 20, after: $after) { edges { cursor node { hash blockNumber index } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
        tokenTransfers(first: 5) { ${transfers} } } }`, { a: address, after })
      const pageInfo = answer?.data?.address?.transactions?.pageInfo
      if (pageInfo?.hasNextPage !== true) break
      after = pageInfo.endCursor
    }
  }
  for (const token of [chain.contracts.token, chain.contracts.nft, chain.contracts.multi]) {
    let after: string | null = null
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer: any = await post(`query ($t: AddressHash!, $after: String) { tokenTransfers(tokenContractAddressHash: $t, first: 25, after: $after) { ${transfers} } }`, { t: token, after })
      const pageInfo = answer?.data?.tokenTransfers?.pageInfo
      if (pageInfo?.hasNextPage !== true) break
      after = pageInfo.endCursor
    }
    await post('query ($t: AddressHash!) { tokenTransfers(tokenContractAddressHash: $t, last: 3) { edges { cursor node { logIndex transactionHash } } pageInfo { hasPreviousPage startCursor } } }', { t: token })
  }
  await post('query ($hs: [AddressHash!]!) { addresses(hashes: $hs) { hash fetchedCoinBalance transactionsCount } }', { hs: chain.accounts })
}

async function recordEtherscan (r: Recorder, chain: AnswerChain, hashes: string[]): Promise<void> {
  const api = (params: Record<string, unknown>) => withParams('/api', params)
  for (const address of [...chain.accounts, chain.contracts.caller, chain.contracts.fanout]) {
    await r.get(api({ module: 'account', action: 'balance', address }))
    for (const action of ['txlist', 'txlistinternal', 'tokentx', 'tokennfttx', 'token1155tx']) {
      await r.get(api({ module: 'account', action, address }))
      await r.get(api({ module: 'account', action, address, page: 2, offset: 5, sort: 'desc' }))
    }
    await r.get(api({ module: 'account', action: 'tokenbalance', contractaddress: chain.contracts.token, address }))
  }
  await r.get(api({ module: 'account', action: 'balancemulti', address: chain.accounts.join(',') }))
  await r.get(api({ module: 'account', action: 'txlistinternal', startblock: 0, endblock: chain.head }))
  for (const hash of hashes.slice(0, 10)) {
    await r.get(api({ module: 'transaction', action: 'getstatus', txhash: hash }))
    await r.get(api({ module: 'transaction', action: 'gettxreceiptstatus', txhash: hash }))
    await r.get(api({ module: 'account', action: 'txlistinternal', txhash: hash }))
  }
  for (const address of Object.values(chain.contracts)) await r.get(api({ module: 'logs', action: 'getLogs', address, fromBlock: 0, toBlock: chain.head }))
  await r.get(api({ module: 'logs', action: 'getLogs', fromBlock: 0, toBlock: chain.head, topic0: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef' }))
  for (const blockno of [1, chain.head]) await r.get(api({ module: 'block', action: 'getblockreward', blockno }))
  await r.get(api({ module: 'stats', action: 'ethsupply' }))
}

/** Joins topics on the Phoenix socket, publishes each of the chain's blocks as the indexer does after a commit, and returns the frames received. */
async function recordSocket (app: FastifyInstance, url: string, chain: AnswerChain): Promise<Answer[]> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/socket/v2/websocket?vsn=2.0.0`)
  const frames: string[] = []
  let last = Date.now()
  ws.on('message', (data) => { frames.push(String(data)); last = Date.now() })
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
  const topics = ['blocks:new_block', 'transactions:new_transaction', 'addresses:new_address', 'token_transfers:new_token_transfer',
    ...[...chain.accounts, chain.contracts.caller, chain.payees[0]!].map((a) => `addresses:${a.toLowerCase()}`),
    ...[chain.contracts.token, chain.contracts.multi].map((a) => `tokens:${a.toLowerCase()}`)]
  topics.forEach((topic, i) => ws.send(JSON.stringify([String(i + 1), String(i + 1), topic, 'phx_join', {}])))
  const quiet = async (): Promise<void> => {
    while (Date.now() - last < SOCKET_QUIET_MS) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  last = Date.now()
  await quiet()
  // One event a block, as a follower at the head publishes them: the socket broadcasts them one after another.
  for (const block of await readCommittedBlocks(app.db.knex, 1, chain.head)) app.indexer.events.publish({ type: 'block', blocks: [block], storedHere: false })
  last = Date.now()
  await quiet()
  ws.terminate()
  return frames.map((frame, i) => ({ request: `SOCKET frame ${i}`, status: 0, body: frame }))
}

/** Every answer, in a fixed order. `url`: where the app listens (the socket needs a real port). */
export async function recordAnswers (app: FastifyInstance, url: string, chain: AnswerChain): Promise<Answer[]> {
  const r = createRecorder(app)
  await recordRest(r, chain)
  const hashes = (await r.get('/api/v2/transactions')).items.map((tx: { hash: string }) => tx.hash) as string[]
  await recordGraphql(app, r, chain, hashes.slice(0, 20))
  await recordEtherscan(r, chain, hashes)
  return [...r.answers, ...await recordSocket(app, url, chain)]
}

/** One line an answer: request, status and body, tab-separated (bodies are JSON: no tab or newline unescaped). */
export async function writeAnswers (path: string, answers: Answer[]): Promise<void> {
  await writeFile(path, answers.map((a) => `${a.request}\t${a.status}\t${a.body}\n`).join(''))
}
