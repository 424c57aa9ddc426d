// Blockscout's Etherscan-style /api on a real chain: the block countdown
// against the node's blocks, and the envelope and statuses of every way a
// request can be wrong (Etherscan's error form, Blockscout's statuses).
import t from 'tap'
import { build } from '../../helper.ts'
import { sealBlocks, writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { PACE_BLOCKS } from '../../../core/stats/chain.ts'
import { ETHERSCAN_MODULES } from '../../../plugins/etherscan/actions.ts'

const { wallets, allocFile } = await writeFundedAlloc(t, 2)
const { app } = await build(t, { GENESIS_ALLOC: allocFile })
await sealBlocks({ rpc: app.geth.rpc, wallets, rounds: 4 })
const head = await waitForIndexed(app)
const get = async (url: string) => await app.inject({ method: 'GET', url })

t.test('getblockcountdown counts the blocks to come and their time at the newest blocks\' pace', async (t) => {
  const timestamps: number[] = []
  // The genesis block's timestamp is the chain's making, not a seal: left out.
  for (let n = Math.max(1, head - PACE_BLOCKS + 1); n <= head; n++) {
    const block = await app.geth.rpc.call<{ timestamp: string }>('eth_getBlockByNumber', ['0x' + n.toString(16), false])
    timestamps.push(Number(block.timestamp))
  }
  const blockTimeS = (timestamps.at(-1)! - timestamps[0]!) / (timestamps.length - 1)
  const response = await get(`/api?module=block&action=getblockcountdown&blockno=${head + 25}`)
  t.equal(response.statusCode, 200)
  t.same(response.json(), {
    status: '1',
    message: 'OK',
    result: {
      CurrentBlock: String(head),
      CountdownBlock: String(head + 25),
      RemainingBlock: '25',
      EstimateTimeInSec: (Math.round(25 * blockTimeS * 10) / 10).toFixed(1)
    }
  })
  const far = (await get('/api/?module=block&action=getblockcountdown&blockno=123456789012345678901234567890')).json()
  t.equal(far.result.RemainingBlock, (123456789012345678901234567890n - BigInt(head)).toString(), 'numbers past 2^53 stay exact')
})

t.test('getblockcountdown errors: 200 with status 0 and a null result, as Blockscout (its front end goes to the block on null)', async (t) => {
  const cases: Array<[string, string]> = [
    [`blockno=${head}`, 'Error! Block number already pass'],
    ['blockno=0', 'Error! Block number already pass'],
    ['blockno=abc', 'Invalid block number'],
    ['blockno=-5', 'Invalid block number'],
    ['blockno=', 'Invalid block number']
  ]
  for (const [params, message] of cases) {
    const response = await get(`/api?module=block&action=getblockcountdown&${params}`)
    t.equal(response.statusCode, 200, params)
    t.same(response.json(), { status: '0', message, result: null }, params)
  }
  t.same((await get('/api?module=block&action=getblockcountdown')).json(), { status: '0', message: 'NOTOK', result: 'Query parameter \'blockno\' is required' },
    'a missing parameter is the dispatcher\'s error, in Etherscan\'s form')
})

t.test('a missing or unknown module or action answers HTTP 200 in Etherscan\'s error form, as Etherscan does', async (t) => {
  const cases: Array<[string, string]> = [
    ['/api', 'Error! Missing Or invalid Module name'],
    ['/api?action=getblockcountdown', 'Error! Missing Or invalid Module name'],
    ['/api?module=nope&action=getblockcountdown', 'Error! Missing Or invalid Module name'],
    ['/api?module=constructor&action=getblockcountdown', 'Error! Missing Or invalid Module name'],
    ['/api?module=block', 'Error! Missing Or invalid Action name'],
    ['/api?module=block&action=toString', 'Error! Missing Or invalid Action name']
  ]
  for (const [url, reason] of cases) {
    const response = await get(url)
    t.equal(response.statusCode, 200, url)
    t.same(response.json(), { status: '0', message: 'NOTOK', result: reason }, url)
  }
  const twice = await get('/api?module=block&action=getblockcountdown&blockno=1&blockno=2')
  t.equal(twice.statusCode, 400, 'a parameter given twice is refused by the route\'s schema')
  t.same(twice.json(), { status: '0', message: 'NOTOK', result: 'querystring/blockno must be string' })
})

t.test('/api is in the API reference with the parameters of every action', async (t) => {
  const document = (await get('/api-docs/json')).json()
  const names = (document.paths['/api']?.get?.parameters ?? []).map((p: { name: string }) => p.name)
  const expected = new Set(['action', 'module', ...Object.values(ETHERSCAN_MODULES).flatMap((byAction) => Object.values(byAction).flatMap((a) => Object.keys(a.params)))])
  t.ok(expected.has('blockno') && expected.has('contractaddress'))
  t.same(names.sort(), [...expected].sort())
  const address = document.paths['/api'].get.parameters.find((p: { name: string }) => p.name === 'address').description
  t.match(address, /account\.balancemulti: Up to 20 addresses/, 'a parameter with several meanings says each')
  t.match(address, /logs\.getLogs: The emitting contract/)
  t.match(address, /account\.balance, [^:]*account\.txlist[^:]*: A 0x-prefixed 20-byte address/)
})

t.test('an unknown apikey answers 401 in Etherscan\'s words (API keys apply to /api as to the REST API)', async (t) => {
  const response = await get(`/api?module=block&action=getblockcountdown&blockno=${head + 1}&apikey=no-such-key`)
  t.equal(response.statusCode, 401)
  t.same(response.json(), { status: '0', message: 'NOTOK', result: 'Invalid API Key' })
  t.equal((await get(`/api?module=block&action=getblockcountdown&blockno=${head + 1}`)).statusCode, 200, 'without a key: served')
})

t.test('every action\'s result schema is strict: the serializer writes a result in the first branch it fits', async (t) => {
  // A loose object schema (properties not all required, or others allowed)
  // would take another action's result and strip its fields.
  const strict = (schema: any, where: string): void => {
    if (schema.anyOf !== undefined) return schema.anyOf.forEach((s: unknown, i: number) => strict(s, `${where}/${i}`))
    const types = [schema.type].flat()
    if (types.includes('array') && schema.items !== undefined) strict(schema.items, `${where}[]`)
    if (types.includes('object')) {
      t.equal(schema.additionalProperties, false, `${where}: no other properties`)
      t.same([...schema.required].sort(), Object.keys(schema.properties).sort(), `${where}: every property required`)
    }
  }
  for (const [module, byAction] of Object.entries(ETHERSCAN_MODULES)) {
    for (const [action, a] of Object.entries(byAction)) strict(a.result, `${module}.${action}`)
  }
})
