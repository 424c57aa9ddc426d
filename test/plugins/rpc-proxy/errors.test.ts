// rpc-proxy answers every client mistake with the right JSON-RPC error, and
// a node that does not answer with -32603, never a hang.
import t from 'tap'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { JsonRpcProvider, Wallet } from 'ethers'
import { build, postRpc } from '../../helper.ts'
import { waitForReceipt } from '../../support/chain.ts'
import { sealBlocks } from '../../support/blocks.ts'

const devKey = Wallet.createRandom().privateKey
const { app, url, chain } = await build(t, {
  RPC_MAX_BATCH: '5',
  RPC_MAX_LOG_RANGE: '100',
  RPC_MAX_LOG_RESULTS: '5',
  RPC_MAX_BODY_BYTES: '100000',
  RPC_TIMEOUT_MS: '1000',
  DEV_ACCOUNTS_FILE: await writeDevAccounts()
})
const ADDRESS = '0x' + 'ab'.repeat(20)

async function writeDevAccounts (): Promise<string> {
  const file = join(process.env.TMPDIR ?? '/tmp', `tg-dev-${process.pid}.json`)
  await writeFile(file, JSON.stringify([devKey]))
  return file
}

const call = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params })

t.test('malformed JSON answers -32700 Parse error with id null', async (t) => {
  for (const body of ['{"jsonrpc":', 'not json', '']) {
    const { status, json } = await postRpc(url, body)
    t.equal(status, 200)
    t.same(json, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }, JSON.stringify(body))
  }
})

t.test('a request that is not a JSON-RPC object answers -32600 Invalid request', async (t) => {
  const cases = [
    1, '"x"', null,
    { jsonrpc: '1.0', id: 1, method: 'eth_blockNumber' },
    { id: 1, method: 'eth_blockNumber' },
    { jsonrpc: '2.0', id: 1 },
    { jsonrpc: '2.0', id: 1, method: 7 },
    { jsonrpc: '2.0', id: { a: 1 }, method: 'eth_blockNumber' },
    { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: 'x' }
  ]
  for (const body of cases) {
    const { json } = await postRpc(url, body)
    t.equal(json.error.code, -32600, JSON.stringify(body))
    t.equal(json.error.message, 'Invalid request')
  }
  const { json } = await postRpc(url, { jsonrpc: '1.0', id: 9, method: 'eth_blockNumber' })
  t.equal(json.id, 9, 'the id is kept when it can be read')
})

t.test('an empty batch is one -32600 error', async (t) => {
  const { json } = await postRpc(url, [])
  t.notOk(Array.isArray(json))
  t.equal(json.error.code, -32600)
})

t.test('a batch over RPC_MAX_BATCH is refused with one clear error', async (t) => {
  const { json } = await postRpc(url, Array.from({ length: 6 }, (_, i) => call('eth_blockNumber', [], i)))
  t.notOk(Array.isArray(json))
  t.equal(json.error.code, -32600)
  t.match(json.error.data, /6 requests is larger than the limit of 5/)
})

t.test('a mixed batch answers each item in order with its own id, notifications get no entry', async (t) => {
  const { json } = await postRpc(url, [
    call('eth_chainId', [], 'a'),
    call('admin_peers', [], 'b'),
    { jsonrpc: '2.0', method: 'eth_blockNumber', params: [] },
    call('eth_getBalance', ['0x12'], 'c'),
    call('eth_getBalance', [chain.account.address, 'latest'], 7)
  ])
  t.equal(json.length, 4)
  t.same(json.map((r: { id: unknown }) => r.id), ['a', 'b', 'c', 7])
  t.equal(json[0].result, '0xc1cbc')
  t.same(json[1].error.code, -32601, 'a denied method inside a batch')
  t.same(json[2].error, { code: -32602, message: 'Invalid params', data: 'param 0 (address): expected a 20-byte hex address, got "0x12"' })
  t.equal(BigInt(json[3].result), 10n ** 24n)
})

t.test('repeated client ids in a batch each get their own answer', async (t) => {
  const { json } = await postRpc(url, [call('eth_getBalance', [chain.account.address, 'latest'], 1), call('eth_blockNumber', [], 1)])
  t.equal(BigInt(json[0].result), 10n ** 24n)
  t.match(json[1].result, /^0x[0-9a-f]+$/)
})

t.test('a batch of notifications only gets no body', async (t) => {
  const response = await fetch(`${url}/rpc`, { method: 'POST', body: JSON.stringify([{ jsonrpc: '2.0', method: 'eth_blockNumber' }]) })
  t.equal(response.status, 204)
  t.equal(await response.text(), '')
})

/** POSTs a raw body and returns status and text, to the gateway or straight to Geth. */
async function postText (target: string, body: string): Promise<{ status: number, text: string }> {
  const response = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  return { status: response.status, text: await response.text() }
}

t.test('a notification is never answered, even when refused, as Geth does', async (t) => {
  const notifications = [
    { jsonrpc: '2.0', method: 'eth_nonsense', params: [] },
    { jsonrpc: '2.0', method: 'debug_traceBlockByNumber', params: ['0x0'] },
    { jsonrpc: '2.0', method: 'eth_getBalance', params: ['0x12'] },
    { jsonrpc: '2.0', method: 'eth_getBalance', params: { address: ADDRESS } },
    { jsonrpc: '2.0', method: 'eth_blockNumber' }
  ]
  for (const notification of notifications) {
    const body = JSON.stringify(notification)
    const ours = await postText(`${url}/rpc`, body)
    t.same(ours, { status: 200, text: '' }, body)
    t.same(ours, await postText(app.geth.rpc.url, body), `${body}: as Geth answers`)
  }
  const { json } = await postRpc(url, [call('eth_chainId', [], 1), ...notifications.slice(0, 4)])
  t.same(json, [{ jsonrpc: '2.0', id: 1, result: '0xc1cbc' }], 'a batch answers only its request')
  const onlyRefused = await fetch(`${url}/rpc`, { method: 'POST', body: JSON.stringify(notifications.slice(0, 3)) })
  t.equal(onlyRefused.status, 204, 'a batch of refused notifications only gets no body')
  t.equal(await onlyRefused.text(), '')
  const broken = await postRpc(url, { jsonrpc: '1.0', method: 'eth_blockNumber' })
  t.same(broken.json.error.code, -32600, 'what is not a JSON-RPC request is still answered, with id null')
  t.equal(broken.json.id, null)
})

t.test('params nested deeper than the limit answer -32602 for that item alone', async (t) => {
  const deepArray = '['.repeat(5000) + ']'.repeat(5000)
  const deepKey = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)
  const balance = `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["${ADDRESS}",${deepArray}]}`
  const ethCall = `{"jsonrpc":"2.0","id":2,"method":"eth_call","params":[{"to":"${ADDRESS}","unknown":${deepKey}},"latest"]}`
  for (const body of [balance, ethCall]) {
    const { status, json } = await postRpc(url, body)
    t.equal(status, 200)
    t.same(json.error, { code: -32602, message: 'Invalid params', data: 'params nest deeper than 16 levels' })
  }
  const batch = await postRpc(url, `[${balance},${ethCall},{"jsonrpc":"2.0","id":3,"method":"eth_chainId"}]`)
  t.equal(batch.status, 200)
  t.same(batch.json.map((a: { id: number }) => a.id), [1, 2, 3])
  t.equal(batch.json[0].error.code, -32602)
  t.equal(batch.json[1].error.code, -32602)
  t.equal(batch.json[2].result, '0xc1cbc', 'the other items are served')
  const accessList = [{ address: ADDRESS, storageKeys: ['0x' + '00'.repeat(32)] }]
  const { json } = await postRpc(url, call('eth_call', [{ to: ADDRESS, accessList }, 'latest']))
  t.equal(json.result, '0x', 'the deepest real param, an access list, passes')
})

t.test('every method outside the allowlist answers -32601', async (t) => {
  for (const method of ['eth_sign', 'eth_signTransaction', 'eth_accounts', 'personal_unlockAccount', 'admin_nodeInfo', 'debug_setHead',
    'miner_stop', 'clique_propose', 'txpool_content', 'eth_nonsense']) {
    const { json } = await postRpc(url, call(method))
    t.same(json.error.code, -32601, method)
    t.equal(json.error.message, 'Method not found')
  }
})

t.test('bad params answer -32602 Invalid params with data naming the param', async (t) => {
  const cases: Array<[string, unknown[], RegExp]> = [
    ['eth_getBalance', [ADDRESS, 'soon'], /param 1 \(block\)/],
    ['eth_getBlockByNumber', ['0x1'], /takes 2 params/],
    ['eth_getTransactionReceipt', ['0xzz'], /param 0 \(hash\)/],
    ['eth_call', [{ to: ADDRESS, data: '0x1' }], /data/],
    ['eth_getLogs', [{ address: 'me' }], /address/]
  ]
  for (const [method, params, data] of cases) {
    const { json } = await postRpc(url, call(method, params))
    t.equal(json.error.code, -32602, method)
    t.equal(json.error.message, 'Invalid params')
    t.match(json.error.data, data)
  }
  const { json } = await postRpc(url, { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: { address: ADDRESS } })
  t.equal(json.error.code, -32602, 'params by name are refused')
})

t.test('eth_getLogs over RPC_MAX_LOG_RANGE blocks is refused', async (t) => {
  const { json } = await postRpc(url, call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x64' }]))
  t.equal(json.error.code, -32005)
  t.match(json.error.data, /101 blocks is larger than the limit of 100/)
  const ok = await postRpc(url, call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x63' }]))
  t.same(ok.json.result, [], '100 blocks are allowed')
  const filter = await postRpc(url, call('eth_newFilter', [{ fromBlock: 'earliest', toBlock: '0x1000' }]))
  t.equal(filter.json.error.code, -32005, 'eth_newFilter has the same cap')
})

t.test('log filters are held to the log limits each time they are served', async (t) => {
  const logged = await sealBlocks({ rpc: app.geth.rpc, wallets: [chain.account], rounds: 8 })
  const range = { fromBlock: '0x0', toBlock: '0x' + logged.head.toString(16), address: logged.logger }
  const logs = await postRpc(url, call('eth_getLogs', [range]))
  t.equal(logs.json.error?.code, -32005, 'eth_getLogs finds 7 logs, over RPC_MAX_LOG_RESULTS')
  const wide = await postRpc(url, call('eth_newFilter', [range]))
  const filterLogs = await postRpc(url, call('eth_getFilterLogs', [wide.json.result]))
  t.equal(filterLogs.json.error?.code, -32005, 'eth_getFilterLogs has the same result cap')
  t.match(filterLogs.json.error?.data, /more than 5 results/)

  const fromHead = await postRpc(url, call('eth_newFilter', [{}]))
  await sealBlocks({ rpc: app.geth.rpc, wallets: [chain.account], rounds: 7 })
  const changes = await postRpc(url, [call('eth_getFilterChanges', [fromHead.json.result], 1), call('eth_chainId', [], 2)])
  t.equal(changes.json[0].error?.code, -32005, 'eth_getFilterChanges finding 6 new logs is refused')
  t.equal(changes.json[1].result, '0xc1cbc')

  const head = Number(await app.geth.rpc.call<string>('eth_blockNumber'))
  const growing = await postRpc(url, call('eth_newFilter', [{ fromBlock: '0x' + head.toString(16), address: ADDRESS }]))
  t.same(await postRpc(url, call('eth_getFilterLogs', [growing.json.result])).then((r) => r.json.result), [], 'served while within RPC_MAX_LOG_RANGE')
  const block = await postRpc(url, call('eth_newBlockFilter'))
  await sealBlocks({ rpc: app.geth.rpc, wallets: [chain.account], rounds: 101 })
  for (const method of ['eth_getFilterLogs', 'eth_getFilterChanges']) {
    const { json } = await postRpc(url, call(method, [growing.json.result]))
    t.equal(json.error?.code, -32005, `${method}: a filter without toBlock that grew past the range is refused`)
    t.match(json.error?.data, /larger than the limit of 100/)
  }
  const hashes = await postRpc(url, call('eth_getFilterChanges', [block.json.result]))
  t.ok(hashes.json.result.length > 100, 'a block filter is not a log filter: its hashes pass')
  const uninstalled = await postRpc(url, call('eth_uninstallFilter', [growing.json.result]))
  t.equal(uninstalled.json.result, true)
})

t.test('eth_sendTransaction signs only for DEV_ACCOUNTS_FILE keys and never reaches Geth', async (t) => {
  const signer = await app.geth.rpc.call<string>('eth_coinbase')
  const fromSigner = await postRpc(url, call('eth_sendTransaction', [{ from: signer, to: ADDRESS, value: '0x1' }]))
  t.same(fromSigner.json.error, { code: -32000, message: 'unknown account', data: 'the gateway holds no key for this from address' },
    'the unlocked Geth signer is not reachable through the proxy')
  const noFrom = await postRpc(url, call('eth_sendTransaction', [{ to: ADDRESS, value: '0x1' }]))
  t.equal(noFrom.json.error.code, -32000)

  const dev = new Wallet(devKey)
  const poor = await postRpc(url, call('eth_sendTransaction', [{ from: dev.address, to: ADDRESS, value: '0x1' }]))
  t.equal(poor.json.error.code, -32000, 'the node\'s own error comes back (no funds)')
  t.match(poor.json.error.message, /insufficient funds/)

  const provider = new JsonRpcProvider(`${url}/rpc`, 793788, { staticNetwork: true, cacheTimeout: -1 })
  t.teardown(() => provider.destroy())
  await waitForReceipt(provider, (await new Wallet(chain.account.privateKey, provider).sendTransaction({ to: dev.address, value: 10n ** 18n })).hash)
  const sends = await Promise.all([1, 2, 3].map(async (value) =>
    await postRpc(url, call('eth_sendTransaction', [{ from: dev.address.toLowerCase(), to: ADDRESS, value: '0x' + value.toString(16) }]))))
  for (const { json } of sends) {
    t.match(json.result, /^0x[0-9a-f]{64}$/, 'concurrent sends from one account each get a hash')
    if (json.result === undefined) continue
    const receipt = await waitForReceipt(provider, json.result)
    t.equal(receipt?.status, 1)
    t.equal(receipt?.from, dev.address)
  }
  // A zero-fee send is refused (Geth's --txpool.nolocals), not left in the pool to stall the account's later sends.
  const free = await postRpc(url, call('eth_sendTransaction', [{ from: dev.address, to: ADDRESS, value: '0x1', gasPrice: '0x0' }]))
  t.equal(free.json.error?.code, -32000, 'gasPrice 0 from a dev account is refused')
  t.match(free.json.error?.message, /transaction underpriced/)
  const after = await postRpc(url, call('eth_sendTransaction', [{ from: dev.address, to: ADDRESS, value: '0x4' }]))
  t.equal((await waitForReceipt(provider, after.json.result))?.status, 1, 'the account\'s next send is mined')
})

t.test('a transaction below the pool\'s price floor is refused as underpriced, from a funded or an unfunded key', async (t) => {
  const funded = new Wallet(chain.account.privateKey)
  const nonce = Number(await app.geth.rpc.call<string>('eth_getTransactionCount', [funded.address, 'pending']))
  const legacy = { type: 0, chainId: 793788, to: ADDRESS, value: 1n, gasLimit: 21_000n, gasPrice: 0n }
  const attempts = [
    ['gasPrice 0 from a funded key', await funded.signTransaction({ ...legacy, nonce })],
    ['gasPrice 0 from an unfunded key', await Wallet.createRandom().signTransaction({ ...legacy, nonce: 0 })],
    ['a dynamic-fee transaction with no tip', await funded.signTransaction({ type: 2, chainId: 793788, to: ADDRESS, value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 0n, nonce })],
    ['a tip under --miner.gasprice (1 gwei)', await funded.signTransaction({ type: 2, chainId: 793788, to: ADDRESS, value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n - 1n, nonce })]
  ] as const
  for (const [what, raw] of attempts) {
    const { json } = await postRpc(url, call('eth_sendRawTransaction', [raw]))
    t.equal(json.error?.code, -32000, what)
    t.match(json.error?.message, /transaction underpriced/, `${what}: Geth's words`)
  }
  const pool = await app.geth.rpc.call<{ pending: Record<string, unknown>, queued: Record<string, unknown> }>('txpool_content')
  t.same([Object.keys(pool.pending), Object.keys(pool.queued)], [[], []], 'none of them is in the pool')
  // eth_gasPrice is the node's suggested tip over the base fee: what the faucet and ethers pay.
  const suggested = BigInt(await app.geth.rpc.call<string>('eth_gasPrice'))
  t.ok(suggested >= 10n ** 9n, `eth_gasPrice suggests at least the floor (${suggested} wei)`)
  const atFloor = await funded.signTransaction({ ...legacy, gasPrice: suggested, nonce })
  const { json } = await postRpc(url, call('eth_sendRawTransaction', [atFloor]))
  t.match(json.result, /^0x[0-9a-f]{64}$/, 'one at the suggested price is accepted')
  const provider = new JsonRpcProvider(`${url}/rpc`, 793788, { staticNetwork: true, cacheTimeout: -1 })
  t.teardown(() => provider.destroy())
  t.equal((await waitForReceipt(provider, json.result))?.status, 1, 'and mined')
})

t.test('a body over RPC_MAX_BODY_BYTES answers 413 with a JSON-RPC error', async (t) => {
  const { status, json } = await postRpc(url, call('eth_call', [{ to: ADDRESS, data: '0x' + '00'.repeat(50_000) }]))
  t.equal(status, 413)
  t.equal(json.error.code, -32600)
})

t.test('Geth that hangs answers -32603 with HTTP 503 after RPC_TIMEOUT_MS', async (t) => {
  const pid = app.geth.supervisor!.pid!
  process.kill(pid, 'SIGSTOP')
  try {
    // The signal is delivered asynchronously: wait until the kernel shows Geth stopped ("T").
    for (let i = 0; i < 100 && (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.[0] !== 'T'; i++) await sleep(10)
    const dev = new Wallet(devKey)
    for (const request of [call('eth_blockNumber'), call('eth_sendTransaction', [{ from: dev.address, to: ADDRESS, value: '0x1' }])]) {
      const started = Date.now()
      const { status, json } = await postRpc(url, request)
      t.ok(Date.now() - started < 3000, `${request.method} answered after ${Date.now() - started} ms`)
      t.equal(status, 503, request.method)
      t.same(json.error, { code: -32603, message: 'Internal error', data: 'the node is unavailable; try again shortly' }, request.method)
    }
    const batch = await postRpc(url, [call('eth_blockNumber', [], 1), call('eth_chainId', [], 2)])
    t.equal(batch.json[0].error.code, -32603, 'a batch item that needs the node fails alone')
    t.equal(batch.json[1].result, '0xc1cbc')
  } finally {
    process.kill(pid, 'SIGCONT')
  }
  await sleep(100)
  const { json } = await postRpc(url, call('eth_blockNumber'))
  t.match(json.result, /^0x/, 'answers again once Geth does')
})

t.test('Geth that is down answers -32603 with HTTP 503 at once', async (t) => {
  await app.geth.supervisor!.stop()
  const calls: Array<[string, unknown[]]> = [['eth_getBalance', [ADDRESS, 'latest']], ['eth_getLogs', [{}]], ['eth_sendRawTransaction', ['0x00']],
    ['eth_sendTransaction', [{ from: new Wallet(devKey).address, to: ADDRESS, value: '0x1' }]], ['eth_getFilterChanges', ['0x1']]]
  for (const [method, params] of calls) {
    const { status, json } = await postRpc(url, call(method, params), '/')
    t.equal(status, 503, method)
    t.equal(json.error.code, -32603, method)
    t.notMatch(JSON.stringify(json), /127\.0\.0\.1|localhost|:\d{4,5}/, `${method}: no internal address in the error`)
  }
  const batch = await postRpc(url, calls.map(([method, params], i) => call(method, params, i)))
  t.notMatch(JSON.stringify(batch.json), /127\.0\.0\.1|localhost|:\d{4,5}/, 'nor in a batch')
})
