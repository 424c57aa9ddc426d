// The JSON-RPC cache never answers differently from Geth: a randomized stream
// (fast-check) of reads, blocks sealed and reorgs forced (debug_setHead, then
// a longer branch sealed), sent to an instance with the cache, one without
// (RPC_CACHE_ENABLED=false) and Geth itself. Between steps, once the cache has
// heard Geth's head, every answer (each request sent twice to the cached
// instance: a miss, then most likely a hit) must equal Geth's. While a block
// is being sealed, answers for `latest` must be Geth's at some block from the
// head the cache had heard when the request was sent to Geth's head after the
// answer: never older than the head heard.
import t from 'tap'
import fc from 'fast-check'
import { Wallet, getCreateAddress, zeroPadValue } from 'ethers'
import { setTimeout as sleep } from 'node:timers/promises'
import { build } from '../../helper.ts'
import { buildSecondInstance } from '../../support/second-instance.ts'
import { sign } from '../../support/blocks.ts'
import { validateParams } from '../../../core/json-rpc/methods.ts'

const HEARD_TIMEOUT_MS = 20_000
const RUNS = Number(process.env.TG_CACHE_EQUALITY_RUNS ?? 10)
/**
 * Runtime `NUMBER PUSH1 0 CALLDATALOAD BALANCE ADD PUSH1 0 MSTORE PUSH1 32
 * PUSH1 0 RETURN`: the block number plus the balance of the address in the
 * calldata, so a call at `latest` changes with every block.
 */
const RUNTIME = '43600035310160005260206000f3'
const INIT_CODE = '0x6d' + RUNTIME + '600052600e6012f3'

const gateway = await build(t)
const { app, url, chain } = gateway
const rpc = app.geth.rpc
const cache = app.jsonRpcCache!
const off = await buildSecondInstance(t, gateway, { RPC_CACHE_ENABLED: 'false' })
const recipients = [Wallet.createRandom().address, Wallet.createRandom().address, Wallet.createRandom().address]
let nonce = Number(await rpc.call<string>('eth_getTransactionCount', [chain.account.address, 'pending']))
const contract = getCreateAddress({ from: chain.account.address, nonce })
const addresses = [chain.account.address, ...recipients, contract, Wallet.createRandom().address]
/** Transactions sent, mined or since dropped by a reorg. */
const transactions: string[] = ['0x' + '5'.repeat(64)]
/** Block hashes seen, replaced ones included. */
const hashes: string[] = []

type JsonRpcCall = { method: string, params: unknown[] }
type Answer = { result?: unknown, error?: { code: number, message: string, data?: unknown } }

const hex = (n: number | bigint): string => '0x' + n.toString(16)

async function nodeHead (): Promise<number> {
  return Number(await rpc.call<string>('eth_blockNumber'))
}

async function waitUntilHeard (number: number): Promise<void> {
  const deadline = Date.now() + HEARD_TIMEOUT_MS
  while (cache.head() !== number) {
    if (Date.now() > deadline) throw new Error(`the cache did not hear block ${number} (it is at ${cache.head()})`)
    await sleep(5)
  }
}

async function send (data: { to?: string, value?: bigint, data?: string, gasLimit: bigint }): Promise<string> {
  const hash = await rpc.call<string>('eth_sendRawTransaction', [await sign(chain.account, { ...data, nonce: nonce++ })])
  transactions.push(hash)
  return hash
}

/** One transaction, sealed at once (clique period 0); resolves once the cache has heard the block. */
async function sealBlock (to: string, value: bigint): Promise<number> {
  const before = await nodeHead()
  await send({ to, value, gasLimit: 21_000n })
  while (await nodeHead() <= before) await sleep(5)
  const head = await nodeHead()
  hashes.push((await rpc.call<{ hash: string }>('eth_getBlockByNumber', [hex(head), false])).hash)
  await waitUntilHeard(head)
  return head
}

/** Geth set back `depth` blocks, then a longer branch sealed from there. */
async function forceReorg (depth: number): Promise<void> {
  const head = await nodeHead()
  const forkAt = Math.max(1, head - depth)
  await rpc.call('debug_setHead', [hex(forkAt)])
  // The replaced blocks' transactions do not come back to the pool.
  nonce = Number(await rpc.call<string>('eth_getTransactionCount', [chain.account.address, 'latest']))
  while (await nodeHead() <= head) await sealBlock(recipients[0]!, 2n)
}

async function answerOf (target: 'cached' | 'off' | 'geth', calls: JsonRpcCall[], batch: boolean): Promise<Answer[]> {
  // Geth itself gets what the gateway forwards: a missing block filled in as latest (Geth requires it).
  const bodies = calls.map((c, i) => ({ jsonrpc: '2.0', id: i, method: c.method, params: target === 'geth' ? filled(c) : c.params }))
  const post = async (body: unknown): Promise<any> => {
    const text = JSON.stringify(body)
    if (target === 'geth') return JSON.parse((await rpc.send(text)).body)
    if (target === 'off') return JSON.parse((await off.inject({ method: 'POST', url: '/rpc', payload: text, headers: { 'content-type': 'application/json' } })).body)
    return await (await fetch(url + '/rpc', { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })).json()
  }
  const answers: any[] = batch ? await post(bodies) : await Promise.all(bodies.map(post))
  return answers.map((a, i) => {
    if (a.id !== i) throw new Error(`${target}: answer ${i} has id ${JSON.stringify(a.id)}`)
    return a.error === undefined ? { result: a.result } : { error: a.error }
  })
}

function filled (call: JsonRpcCall): unknown[] {
  const checked = validateParams(call.method, call.params)
  if ('reason' in checked) throw new Error(`${call.method}: ${checked.reason}`)
  return checked.params
}

// What a request asks, drawn before the chain it runs on is known: numbers and hashes are picked when it runs.
type BlockPick = { at: 'missing' | 'latest' | 'pending' | 'earliest' } | { at: 'number' | 'hash', fraction: number } | { at: 'above', by: number }
type RequestSpec = { method: string, address: number, block: BlockPick, tx: number, full: boolean }

const blockPick: fc.Arbitrary<BlockPick> = fc.oneof(
  fc.constantFrom<BlockPick>({ at: 'missing' }, { at: 'latest' }, { at: 'pending' }, { at: 'earliest' }),
  fc.record({ at: fc.constantFrom('number' as const, 'hash' as const), fraction: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ at: fc.constant('above' as const), by: fc.integer({ min: 1, max: 2 }) })
)
const METHODS = ['eth_blockNumber', 'eth_gasPrice', 'eth_maxPriorityFeePerGas', 'eth_feeHistory', 'eth_getBlockByNumber', 'eth_getBlockByHash',
  'eth_getBalance', 'eth_getTransactionCount', 'eth_getCode', 'eth_getStorageAt', 'eth_call', 'eth_estimateGas',
  'eth_getTransactionByHash', 'eth_getTransactionReceipt', 'eth_chainId', 'web3_clientVersion', 'eth_getBlockTransactionCountByNumber',
  'eth_getProof', 'eth_createAccessList']
const requestSpec: fc.Arbitrary<RequestSpec> = fc.record({
  method: fc.constantFrom(...METHODS),
  address: fc.nat(addresses.length - 1),
  block: blockPick,
  tx: fc.nat(1000),
  full: fc.boolean()
})

type Step =
  | { kind: 'requests', specs: RequestSpec[], batch: boolean }
  | { kind: 'seal', to: number, value: number }
  | { kind: 'reorg', depth: number }
  | { kind: 'sealing', specs: RequestSpec[] }
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('requests' as const), specs: fc.array(requestSpec, { minLength: 1, maxLength: 8 }), batch: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('seal' as const), to: fc.nat(recipients.length - 1), value: fc.integer({ min: 1, max: 1000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reorg' as const), depth: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('sealing' as const), specs: fc.array(requestSpec, { minLength: 1, maxLength: 4 }) }) }
)

/** The block param of a spec on a chain at `head`. */
async function blockRef (pick: BlockPick, head: number): Promise<string | undefined> {
  switch (pick.at) {
    case 'missing': return undefined
    case 'number': return hex(Math.floor(pick.fraction * (head + 1)) % (head + 1))
    case 'hash': {
      const known = hashes.length > 0 && pick.fraction < 0.3
      if (known) return hashes[Math.floor(pick.fraction / 0.3 * hashes.length) % hashes.length]
      return (await rpc.call<{ hash: string }>('eth_getBlockByNumber', [hex(Math.floor(pick.fraction * (head + 1)) % (head + 1)), false])).hash
    }
    case 'above': return hex(head + pick.by)
    default: return pick.at
  }
}

async function materialize (spec: RequestSpec, head: number): Promise<JsonRpcCall> {
  const address = addresses[spec.address]!
  const ref = await blockRef(spec.block, head)
  const numberRef = ref === undefined || ref.length === 66 ? 'latest' : ref
  const withRef = (params: unknown[]): unknown[] => ref === undefined ? params : [...params, ref]
  const tx = transactions[spec.tx % transactions.length]!
  switch (spec.method) {
    case 'eth_feeHistory': return { method: spec.method, params: ['0x2', numberRef, [25, 75]] }
    case 'eth_getBlockByNumber': return { method: spec.method, params: [numberRef, spec.full] }
    case 'eth_getBlockTransactionCountByNumber': return { method: spec.method, params: [numberRef] }
    case 'eth_getBlockByHash': return { method: spec.method, params: [ref?.length === 66 ? ref : hashes[spec.tx % Math.max(1, hashes.length)] ?? tx, spec.full] }
    case 'eth_getBalance': case 'eth_getTransactionCount': case 'eth_getCode': return { method: spec.method, params: withRef([address]) }
    case 'eth_getStorageAt': return { method: spec.method, params: withRef([address, '0x0']) }
    case 'eth_call': return { method: spec.method, params: withRef([{ to: contract, data: zeroPadValue(address, 32) }]) }
    case 'eth_estimateGas': return { method: spec.method, params: withRef([{ from: chain.account.address, to: address, value: '0x1' }]) }
    case 'eth_getProof': return { method: spec.method, params: withRef([address, ['0x0']]) }
    case 'eth_createAccessList': return { method: spec.method, params: withRef([{ from: chain.account.address, to: contract, data: zeroPadValue(address, 32) }]) }
    case 'eth_getTransactionByHash': case 'eth_getTransactionReceipt': return { method: spec.method, params: [tx] }
    default: return { method: spec.method, params: [] }
  }
}

/** At rest (the cache has heard Geth's head): the cached instance, twice, and the one without it answer as Geth does. */
async function checkAtRest (specs: RequestSpec[], batch: boolean): Promise<void> {
  const head = await nodeHead()
  const calls = await Promise.all(specs.map(async (s) => await materialize(s, head)))
  const first = await answerOf('cached', calls, batch)
  const second = await answerOf('cached', calls, batch)
  const withoutCache = await answerOf('off', calls, batch)
  const geth = await answerOf('geth', calls, batch)
  if (await nodeHead() !== head) throw new Error('the head moved during a check at rest')
  for (const [i, c] of calls.entries()) {
    const expected = JSON.stringify(geth[i])
    for (const [what, got] of [['cached (first)', first[i]], ['cached (again)', second[i]], ['without the cache', withoutCache[i]]] as const) {
      if (JSON.stringify(got) !== expected) throw new Error(`${c.method} ${JSON.stringify(c.params)} at head ${head}: ${what} answered ${JSON.stringify(got)}, Geth ${expected}`)
    }
  }
}

/** The latest-answer requests of `specs`, sent to the cached instance while a block is sealed. */
async function checkWhileSealing (specs: RequestSpec[]): Promise<void> {
  const before = await nodeHead()
  const latest = specs.filter((s) => ['eth_blockNumber', 'eth_getBalance', 'eth_call', 'eth_getTransactionCount'].includes(s.method))
  const calls = await Promise.all(latest.map(async (s) => await materialize({ ...s, block: { at: 'missing' } }, before)))
  const sealed = sealBlock(recipients[latest.length % recipients.length]!, 1n)
  const state = { sealed: false }
  sealed.finally(() => { state.sealed = true }).catch(() => {})
  const observed: Array<{ call: JsonRpcCall, heard: number, answer: Answer, after: number }> = []
  // Until the block is heard, and a round after it.
  for (let roundsAfter = 0; calls.length > 0 && roundsAfter < 1;) {
    const sealedBefore = state.sealed
    for (const call of calls) {
      const heard = cache.head() ?? before
      const [answer] = await answerOf('cached', [call], false)
      observed.push({ call, heard, answer: answer!, after: await nodeHead() })
    }
    if (sealedBefore) roundsAfter++
  }
  await sealed
  for (const o of observed) {
    const candidates: string[] = []
    for (let n = o.heard; n <= o.after; n++) {
      const atN = o.call.method === 'eth_blockNumber'
        ? { result: hex(n) }
        : (await answerOf('geth', [{ method: o.call.method, params: [...o.call.params, hex(n)] }], false))[0]!
      candidates.push(JSON.stringify(atN))
    }
    if (!candidates.includes(JSON.stringify(o.answer))) {
      throw new Error(`${o.call.method} ${JSON.stringify(o.call.params)}: answered ${JSON.stringify(o.answer)} with block ${o.heard} heard; Geth's answers at blocks ${o.heard}..${o.after}: ${candidates.join(' ')}`)
    }
  }
}

async function run (s: Step): Promise<void> {
  if (s.kind === 'requests') await checkAtRest(s.specs, s.batch)
  else if (s.kind === 'seal') await sealBlock(recipients[s.to]!, BigInt(s.value))
  else if (s.kind === 'reorg') await forceReorg(s.depth)
  else await checkWhileSealing(s.specs)
}

// The contract, and a few blocks to reorg.
const startHead = await nodeHead()
await send({ data: INIT_CODE, gasLimit: 100_000n })
while (await nodeHead() === startHead) await sleep(5)
await waitUntilHeard(await nodeHead())
for (const to of recipients) await sealBlock(to, 1n)

t.test('the cached instance, one without the cache and Geth answer alike while blocks are sealed and reorgs forced', async (t) => {
  const reorgsBefore = cache.stats().reorgs
  let steps = 0
  await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 6, maxLength: 14 }), async (stream) => {
    // Every run forces at least one reorg, between its own steps.
    const withReorg: Step[] = [...stream.slice(0, 3), { kind: 'reorg', depth: 2 }, ...stream.slice(3)]
    for (const s of withReorg) {
      await run(s)
      steps++
    }
    await checkAtRest(stream.flatMap((s) => s.kind === 'requests' || s.kind === 'sealing' ? s.specs : []).slice(0, 20), true)
  }), { numRuns: RUNS, endOnFailure: true })
  t.ok(cache.stats().reorgs - reorgsBefore >= RUNS, `${cache.stats().reorgs - reorgsBefore} reorgs heard in ${steps} steps`)
  t.ok(cache.stats().hits > 0, `${cache.stats().hits} hits, ${cache.stats().misses} misses`)
})
