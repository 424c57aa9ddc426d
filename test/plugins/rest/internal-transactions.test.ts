// REST internal transactions, raw traces, logs and a block's lists on a real
// chain: values from the node (callTracer, receipts), shapes from Blockscout's
// OpenAPI spec, every list walked to its end.
import t from 'tap'
import { Interface, getAddress } from 'ethers'
import { buildActivityChain, MANY } from '../../support/activity-chain.ts'
import { OPENAPI_SPEC_PRESENT } from '../../support/openapi.ts'
import { checkBadInput, specCheck } from '../../support/rest.ts'
import { walkPages } from '../../support/pages.ts'

const chain = await buildActivityChain(t)
const { app, head, receipts, contracts } = chain
const rpc = app.geth.rpc
const get = async (path: string) => await app.inject({ method: 'GET', url: path })
if (!OPENAPI_SPEC_PRESENT) t.comment('../shared/api is absent: responses are not checked against Blockscout\'s OpenAPI spec')

type Frame = { type: string, from: string, to?: string, value?: string, gas: string, gasUsed: string, input: string, output?: string, error?: string, calls?: Frame[] }
type Flat = { hash: string, block: number, txIndex: number, index: number, frame: Frame, traceAddress: number[] }

/** Every frame of the node's callTracer, depth first, numbered as Blockscout numbers them. */
async function nodeFrames (): Promise<Flat[]> {
  const out: Flat[] = []
  for (let n = 1; n <= head; n++) {
    const traces = await rpc.call<Array<{ txHash: string, result: Frame }>>('debug_traceBlockByNumber', ['0x' + n.toString(16), { tracer: 'callTracer' }])
    traces.forEach(({ txHash, result }, txIndex) => {
      let index = 0
      const visit = (frame: Frame, traceAddress: number[]) => {
        out.push({ hash: txHash, block: n, txIndex, index: index++, frame, traceAddress })
        frame.calls?.forEach((c, i) => visit(c, [...traceAddress, i]))
      }
      visit(result, [])
    })
  }
  return out
}
const frames = await nodeFrames()
// Blockscout leaves out a transaction's own top-level call (a top-level create stays).
const listed = frames.filter((f) => f.index > 0 || f.frame.type !== 'CALL')
const key = (i: { transaction_hash: string, index: number }) => `${i.transaction_hash}:${i.index}`
const flatKey = (f: Flat) => `${f.hash}:${f.index}`
const newestFirst = (a: Flat, b: Flat) => b.block - a.block || b.txIndex - a.txIndex || b.index - a.index

t.test('GET /api/v2/internal-transactions walks every internal transaction of the node once, newest first', async (t) => {
  const { items } = await walkPages(t, get, '/api/v2/internal-transactions', {
    key, cursorKeys: ['block_number', 'transaction_index', 'index', 'items_count'], check: specCheck(t, '/v2/internal-transactions')
  })
  t.ok(listed.length > 2 * MANY / 2, 'the chain has more than a page of internal transactions')
  t.same(items.map(key), [...listed].sort(newestFirst).map(flatKey))
  const byKey = new Map(listed.map((f) => [flatKey(f), f]))
  for (const item of items) {
    const f = byKey.get(key(item))!
    t.equal(item.type, f.frame.type.toLowerCase())
    t.equal(item.from.hash, getAddress(f.frame.from))
    t.equal(item.value, BigInt(f.frame.value ?? '0x0').toString())
    t.equal(item.gas_limit, BigInt(f.frame.gas).toString())
    t.equal(item.success, f.frame.error === undefined)
    t.equal(item.block_number, f.block)
    t.equal(item.transaction_index, f.txIndex)
    if (f.frame.type === 'CREATE') {
      t.equal(item.to, null)
      t.equal(item.created_contract.hash, getAddress(f.frame.to!))
    } else t.equal(item.to.hash, getAddress(f.frame.to!))
  }
  const limited = (await get('/api/v2/internal-transactions?limit=3')).json()
  t.equal(limited.items.length, 3, 'limit shrinks a page')
  t.same(limited.items.map(key), items.slice(0, 3).map(key))
  t.same(Object.keys(limited.next_page_params).sort(), ['block_number', 'index', 'items_count', 'limit', 'transaction_index'], 'limit is echoed')
  const ofFan = (await get(`/api/v2/internal-transactions?transaction_hash=${receipts.fan.hash}`)).json()
  t.ok(ofFan.items.every((i: { transaction_hash: string }) => i.transaction_hash === receipts.fan.hash), 'transaction_hash filters')
  t.equal(ofFan.next_page_params.transaction_hash, receipts.fan.hash, 'the filter is echoed')
})

t.test('GET /api/v2/transactions/{hash}/internal-transactions lists the frames in call order over two pages', async (t) => {
  const { items } = await walkPages(t, get, `/api/v2/transactions/${receipts.fan.hash}/internal-transactions`, {
    key, cursorKeys: ['block_number', 'transaction_index', 'index', 'items_count'], check: specCheck(t, '/v2/transactions/{transaction_hash_param}/internal-transactions')
  })
  t.equal(items.length, MANY, 'one payment per payee')
  t.same(items.map((i: { to: { hash: string } }) => i.to.hash), chain.payees)
  t.ok(items.every((i: { value: string, type: string }) => i.value === '1000' && i.type === 'call'))
  const spawn = (await get(`/api/v2/transactions/${receipts.spawn.hash}/internal-transactions`)).json()
  t.equal(spawn.items.length, 1)
  t.equal(spawn.items[0].type, 'create', 'a contract created by a contract')
  t.equal(spawn.items[0].from.hash, contracts.caller)
  const creation = (await get(`/api/v2/transactions/${receipts.tokenCreation.hash}/internal-transactions`)).json()
  t.equal(creation.items[0]?.type, 'create', 'a creating transaction\'s top-level create is listed')
  const plain = (await get(`/api/v2/transactions/${receipts.coinTransfer.hash}/internal-transactions`)).json()
  t.same(plain, { items: [], next_page_params: null }, 'a plain transfer has no internal transactions')
})

t.test('GET /api/v2/blocks/{id}/internal-transactions and /transactions list the block in order', async (t) => {
  const block = receipts.fan.blockNumber
  const expected = listed.filter((f) => f.block === block).map(flatKey)
  for (const id of [String(block), receipts.fan.blockHash]) {
    const { items } = await walkPages(t, get, `/api/v2/blocks/${id}/internal-transactions`, {
      key, cursorKeys: ['transaction_index', 'index', 'items_count'], check: specCheck(t, '/v2/blocks/{block_hash_or_number_param}/internal-transactions')
    })
    t.same(items.map(key), expected, `block ${id}`)
  }
  // The mints were sealed together: the fullest block.
  const mintBlock = (await rpc.call<{ transactions: string[] }>('eth_getBlockByNumber', ['0x' + (receipts.multiBatch.blockNumber - 1).toString(16), false]))
  const { items } = await walkPages(t, get, `/api/v2/blocks/${receipts.multiBatch.blockNumber - 1}/transactions`, {
    key: (tx) => tx.hash, cursorKeys: ['block_number', 'index', 'items_count'], check: specCheck(t, '/v2/blocks/{block_hash_or_number_param}/transactions')
  })
  t.same(items.map((tx: { hash: string }) => tx.hash), mintBlock.transactions, 'in index order')
  for (const type of ['coin_transfer', 'contract_call', 'contract_creation', 'token_transfer', 'token_creation']) {
    for (const n of [receipts.tokenCreation.blockNumber, receipts.forward.blockNumber, receipts.coinTransfer.blockNumber, receipts.multiBatch.blockNumber - 1]) {
      const all = (await get(`/api/v2/blocks/${n}/transactions`)).json().items
      const filtered = (await get(`/api/v2/blocks/${n}/transactions?type=${type}`)).json().items
      t.same(filtered.map((tx: { hash: string }) => tx.hash), all.filter((tx: { transaction_types: string[] }) => tx.transaction_types.includes(type)).map((tx: { hash: string }) => tx.hash),
        `block ${n}, type ${type}`)
    }
  }
})

t.test('GET /api/v2/addresses/{hash}/internal-transactions walks each side', async (t) => {
  const address = contracts.fanout
  const sides = { from: (f: Flat) => f.frame.from, to: (f: Flat) => f.frame.type === 'CREATE' ? undefined : f.frame.to }
  const created = (f: Flat) => f.frame.type.startsWith('CREATE') ? f.frame.to : undefined
  const is = (a: string | undefined) => a !== undefined && a.toLowerCase() === address.toLowerCase()
  const expected = {
    '': listed.filter((f) => is(sides.from(f)) || is(sides.to(f)) || is(created(f))),
    from: listed.filter((f) => is(sides.from(f))),
    to: listed.filter((f) => is(sides.to(f)) || is(created(f)))
  }
  for (const [filter, wanted] of Object.entries(expected)) {
    const { items, pages } = await walkPages(t, get, `/api/v2/addresses/${address}/internal-transactions`, {
      key, resend: filter === '' ? {} : { filter }, check: specCheck(t, '/v2/addresses/{address_hash_param}/internal-transactions')
    })
    t.same(items.map(key), wanted.sort(newestFirst).map(flatKey), `filter=${filter}`)
    if (filter !== '' && pages.length > 1) t.equal(pages[0].next_page_params.filter, filter, 'the filter is echoed')
  }
  t.ok(expected.from.length > 50, 'the from side has more than a page')
  const unknown = (await get(`/api/v2/addresses/0x${'ab'.repeat(20)}/internal-transactions`)).json()
  t.same(unknown, { items: [], next_page_params: null }, 'an unknown address has an empty list')
})

t.test('GET /api/v2/transactions/{hash}/raw-trace matches the node\'s callTracer', async (t) => {
  for (const receipt of [receipts.forward, receipts.spawn, receipts.reverted, receipts.tokenCreation, receipts.fan, receipts.selfdestruct]) {
    const body = (await get(`/api/v2/transactions/${receipt.hash}/raw-trace`)).json()
    specCheck(t, '/v2/transactions/{transaction_hash_param}/raw-trace')(body)
    const mine = frames.filter((f) => f.hash === receipt.hash)
    t.equal(body.length, mine.length, `${receipt.hash}: one trace per frame`)
    body.forEach((trace: any, i: number) => {
      const f = mine[i]!
      t.same(trace.traceAddress, f.traceAddress)
      t.equal(trace.subtraces, f.frame.calls?.length ?? 0)
      t.equal(trace.transactionHash, receipt.hash)
      t.equal(trace.action.from, f.frame.from.toLowerCase())
      t.equal(BigInt(trace.action.gas), BigInt(f.frame.gas))
      t.equal(BigInt(trace.action.value), BigInt(f.frame.value ?? '0x0'))
      if (f.frame.error !== undefined) {
        t.equal(trace.error, f.frame.error)
        t.notOk('result' in trace)
      } else t.equal(BigInt(trace.result.gasUsed), BigInt(f.frame.gasUsed))
      if (f.frame.type.startsWith('CREATE')) {
        t.equal(trace.type, 'create')
        t.equal(trace.action.init, f.frame.input)
        if (f.frame.error === undefined) t.same([trace.result.address, trace.result.code], [f.frame.to!.toLowerCase(), f.frame.output])
      } else if (f.frame.type === 'SELFDESTRUCT') {
        t.same([trace.type, trace.action.to, trace.action.callType], ['selfdestruct', f.frame.to!.toLowerCase(), undefined])
      } else {
        t.same([trace.type, trace.action.callType, trace.action.to, trace.action.input], ['call', f.frame.type.toLowerCase(), f.frame.to!.toLowerCase(), f.frame.input])
        if (f.frame.error === undefined) t.equal(trace.result.output, f.frame.output ?? '0x')
      }
    })
  }
  t.equal(frames.find((f) => f.hash === receipts.reverted.hash)?.frame.error, 'execution reverted', 'the reverted transaction is in the set')
  const closed = (await get(`/api/v2/transactions/${receipts.selfdestruct.hash}/internal-transactions`)).json()
  t.match(closed.items, [{ type: 'selfdestruct', to: { hash: chain.wallets[1]!.address }, value: '777' }], 'a selfdestruct frame is listed with the balance it sent')
})

t.test('GET /api/v2/transactions/{hash}/logs and /addresses/{hash}/logs match the receipts', async (t) => {
  const { items } = await walkPages(t, get, `/api/v2/transactions/${receipts.fan.hash}/logs`, {
    key: (l) => `${l.transaction_hash}:${l.index}`, cursorKeys: ['block_number', 'index', 'items_count'], check: specCheck(t, '/v2/transactions/{transaction_hash_param}/logs')
  })
  t.equal(items.length, receipts.fan.logs.length)
  items.forEach((item: any, i: number) => {
    const log = receipts.fan.logs[i]!
    t.equal(item.index, log.index)
    t.same(item.topics, [...log.topics, null, null, null, null].slice(0, 4), 'four topics, the missing ones null')
    t.equal(item.data, log.data)
    t.equal(item.address.hash, contracts.fanout)
    t.equal(item.address.is_contract, true)
    t.equal(item.smart_contract.hash, contracts.fanout)
    t.equal(item.block_hash, receipts.fan.blockHash)
    t.equal(item.decoded, null)
  })
  const forward = (await get(`/api/v2/transactions/${receipts.forward.hash}/logs`)).json()
  t.same(forward.items.map((l: { address: { hash: string } }) => l.address.hash), receipts.forward.logs.map((l) => getAddress(l.address)), 'logs of two contracts')

  const nodeLogs = await chain.provider.getLogs({ address: contracts.token, fromBlock: 0, toBlock: head })
  const tokenLogs = await walkPages(t, get, `/api/v2/addresses/${contracts.token}/logs`, {
    key: (l) => `${l.block_number}:${l.index}`, check: specCheck(t, '/v2/addresses/{address_hash_param}/logs')
  })
  t.same(tokenLogs.items.map((l: any) => `${l.transaction_hash}:${l.index}`), nodeLogs.reverse().map((l) => `${l.transactionHash}:${l.index}`), 'newest first, every log')
  // The token's events decode by the selector table, as ethers decodes them.
  const events = new Interface(['event Transfer(address indexed from, address indexed to, uint256 value)', 'event Approval(address indexed owner, address indexed spender, uint256 value)'])
  tokenLogs.items.forEach((l: any, i: number) => {
    const own = events.parseLog(nodeLogs[i]!)!
    t.same(l.decoded, {
      method_id: own.topic.slice(2, 10),
      method_call: `${own.name}(${own.fragment.inputs.map((p) => `${p.type}${p.indexed === true ? ' indexed' : ''} ${p.name}`).join(', ')})`,
      parameters: own.fragment.inputs.map((p, j) => ({ name: p.name, type: p.type, indexed: p.indexed === true, value: String(own.args[j]) }))
    })
  })
  const fanLogs = await walkPages(t, get, `/api/v2/addresses/${contracts.fanout}/logs`, { key: (l) => `${l.block_number}:${l.index}`, cursorKeys: ['block_number', 'index', 'items_count'] })
  t.equal(fanLogs.items.length, MANY)
  const payee = '0x' + '00'.repeat(12) + chain.payees[7]!.slice(2).toLowerCase()
  const byTopic = await walkPages(t, get, `/api/v2/addresses/${contracts.fanout}/logs`, { key: (l) => `${l.block_number}:${l.index}`, resend: { topic: payee } })
  t.same(byTopic.items.map((l: { topics: string[] }) => l.topics[1]), [payee], 'topic matches any topic position')
})

t.test('bad input answers 422, a missing transaction or block 404', async (t) => {
  const missing = `0x${'cd'.repeat(32)}`
  const huge = '99999999999999999999999'
  await checkBadInput(t, get, {
    invalid: [
      ['/api/v2/transactions/0x12/internal-transactions', '/transaction_hash_param'],
      ['/api/v2/transactions/0x12/logs', '/transaction_hash_param'],
      ['/api/v2/transactions/0xzz/raw-trace', '/transaction_hash_param'],
      [`/api/v2/transactions/${receipts.fan.hash}/logs?foo=1`, '/foo'],
      [`/api/v2/transactions/${receipts.fan.hash}/internal-transactions?block_number=-1`, '/block_number'],
      [`/api/v2/transactions/${receipts.fan.hash}/internal-transactions?index=abc`, '/index'],
      ['/api/v2/internal-transactions?items_count=51', '/items_count'],
      ['/api/v2/internal-transactions?transaction_hash=0x1', '/transaction_hash'],
      ['/api/v2/addresses/0x123/internal-transactions', '/address_hash_param'],
      [`/api/v2/addresses/${contracts.fanout}/internal-transactions?filter=all`, '/filter'],
      [`/api/v2/addresses/${contracts.fanout}/logs?topic=xyz`, '/topic'],
      ['/api/v2/blocks/-1/internal-transactions', '/block_hash_or_number_param'],
      ['/api/v2/blocks/0x12/transactions', '/block_hash_or_number_param'],
      ['/api/v2/blocks/1/transactions?type=blob_transaction', '/type']
    ],
    missing: [`/api/v2/transactions/${missing}/internal-transactions`, `/api/v2/transactions/${missing}/logs`,
      `/api/v2/transactions/${missing}/raw-trace`, `/api/v2/blocks/${missing}/transactions`, '/api/v2/blocks/99999999/internal-transactions',
      `/api/v2/blocks/${huge}/transactions`],
    harmless: [`/api/v2/internal-transactions?block_number=${huge}&transaction_index=${huge}&index=-${huge}`,
      `/api/v2/transactions/${receipts.fan.hash}/internal-transactions?index=${huge}`,
      `/api/v2/addresses/${contracts.fanout}/logs?block_number=${huge}&index=${huge}`,
      `/api/v2/blocks/${receipts.fan.blockNumber}/internal-transactions?transaction_index=-${huge}&index=${huge}`,
      `/api/v2/blocks/${receipts.fan.blockNumber}/transactions?index=-${huge}`]
  })
  const first = (await get('/api/v2/internal-transactions')).json()
  const tampered = (await get(`/api/v2/internal-transactions?block_number=${huge}&transaction_index=0&index=0&items_count=50`)).json()
  t.same(tampered.items.map(key), first.items.map(key), 'a cursor past the head reads the first page')
})

t.test('GET /api/v2/transactions/{hash}/summary answers the interpreter\'s summaries (test/plugins/rest/interpretation.test.ts tests them)', async (t) => {
  for (const path of [`/api/v2/transactions/${receipts.fan.hash}/summary`, `/api/v2/transactions/${receipts.fan.hash}/summary?just_request_body=true`]) {
    const response = await get(path)
    t.equal(response.statusCode, 200, path)
    t.match(response.json(), { success: true, data: { summaries: [{ summary_template: 'Called {method} on {to_address}' }] } })
  }
  for (const path of ['/api/v2/transactions/0x12/summary', `/api/v2/transactions/${receipts.fan.hash}/summary?just_request_body=maybe`,
    `/api/v2/transactions/${receipts.fan.hash}/summary?foo=1`]) {
    const response = await get(path)
    t.equal(response.statusCode, 422, path)
    t.match(response.json(), { errors: [{ title: 'Invalid value', source: { pointer: String } }] }, path)
  }
})

t.test('the sub-list routes are in the OpenAPI document at /api-docs/json', async (t) => {
  const response = await get('/api-docs/json')
  t.equal(response.statusCode, 200)
  const paths = Object.keys(response.json().paths)
  for (const path of ['/api/v2/internal-transactions', '/api/v2/token-transfers', '/api/v2/transactions/{transaction_hash_param}/raw-trace',
    '/api/v2/transactions/{transaction_hash_param}/state-changes', '/api/v2/addresses/{address_hash_param}/logs',
    '/api/v2/blocks/{block_hash_or_number_param}/internal-transactions', '/api/v2/tokens/{address_hash_param}/transfers',
    '/api/v2/transactions/{transaction_hash_param}/summary']) {
    t.ok(paths.includes(path), path)
  }
})
