// Address objects on a real chain: the verified contract's name and
// is_verified, the token's name where nothing is verified, the operator's
// public tags in Blockscout's Tag shape, in every list and detail that shows
// addresses (also block miners, state changes, NFT owners and the socket's
// pushes); names read in one query a page; an EIP-1967 proxy and an EIP-1167
// clone showing their implementations on the address detail.
import t from 'tap'
import WebSocket from 'ws'
import { Socket } from 'phoenix'
import { AbiCoder, Interface, Wallet, getAddress } from 'ethers'
import { build } from '../../helper.ts'
import { compileContract } from '../../support/contracts.ts'
import { writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { checkSpec } from '../../support/openapi.ts'
import { BUNDLED_VERSION, compileStandard, createSender, deployProxies, readFixture, standardInput } from '../../support/verify.ts'
import { runTag } from '../../../scripts/ops/tag.ts'
import { announceNameChange } from '../../../core/address-names/index.ts'

const { wallets, allocFile } = await writeFundedAlloc(t, 1)
const { app, url } = await build(t, { GENESIS_ALLOC: allocFile })
const sender = createSender(app.geth.rpc, wallets[0]!)
const deployer = wallets[0]!.address.toLowerCase()
const get = async (path: string) => {
  const response = await app.inject({ method: 'GET', url: path })
  if (response.statusCode !== 200) throw new Error(`${path} answered ${response.statusCode}: ${response.body}`)
  return response.json()
}
const post = async (path: string, body: object) => (await app.inject({ method: 'POST', url: path, payload: body })).json()

const tokenInput = standardInput({ 'contracts/VerifiedToken.sol': await readFixture('VerifiedToken.sol') })
const token = compileStandard(tokenInput, 'contracts/VerifiedToken.sol', 'VerifiedToken')
const tokenArgs = (name: string) => AbiCoder.defaultAbiCoder().encode(['string', 'string', 'uint256', 'uint256'], [name, 'VT', 1000n, 2000n]).slice(2)
const verifiedToken = await sender.deploy(token.bytecode + tokenArgs('Token A'))
const plainToken = await sender.deploy(token.bytecode + tokenArgs('Token B'))

const { input: proxiesInput, counterCode, counter, proxy, factory, child1, child2, clone } = await deployProxies(sender)

const receiver = Wallet.createRandom().address.toLowerCase()
const transfer = await sender.send(verifiedToken.address, token.abi.encodeFunctionData('transfer', [receiver, 5n]))
const plainTransfer = await sender.send(plainToken.address, token.abi.encodeFunctionData('transfer', [receiver, 7n]))
// A call through the proxy: its internal transaction is a delegatecall from the proxy to Counter.
const viaProxy = await sender.send(proxy.address, counterCode.abi.encodeFunctionData('increment'))
await waitForIndexed(app)

const verify = async (address: string, name: string, input: object) =>
  await post(`/api/v2/smart-contracts/${address}/verification/via/standard-input`, { compiler_version: BUNDLED_VERSION, contract_name: name, input })

/** The fields this feature sets, of an address object. */
const naming = (o: { hash: string, name: string | null, is_verified: boolean, public_tags: unknown[] }) => ({ hash: o.hash, name: o.name, is_verified: o.is_verified, public_tags: o.public_tags })
const unnamed = (address: string) => ({ hash: getAddress(address), name: null, is_verified: false, public_tags: [] })
const named = (address: string, name: string, isVerified: boolean) => ({ hash: getAddress(address), name, is_verified: isVerified, public_tags: [] })

/** Waits (at most 3 s, less than the names' 10 s lifetime) until `read` shows what `done` wants: a change heard through the database's notice. */
async function eventually<T> (read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 3_000
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > until) return value
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

t.test('before verification: a token shows its token name, not verified; other addresses no name', async (t) => {
  const detail = await get(`/api/v2/transactions/${plainTransfer}`)
  t.same(naming(detail.to), named(plainToken.address, 'Token B', false), 'the token\'s name (Blockscout records it as the address\'s name)')
  t.same(naming(detail.from), unnamed(deployer))
  t.same(naming((await get(`/api/v2/addresses/${verifiedToken.address}`))), named(verifiedToken.address, 'Token A', false))
  t.same(naming(await get(`/api/v2/addresses/${counter.address}`)), unnamed(counter.address))
  t.match(await get(`/api/v2/addresses/${proxy.address}`), { proxy_type: 'eip1967', implementations: [{ address_hash: getAddress(counter.address), name: null }], is_verified: false },
    'a proxy, its implementation not verified yet')
  t.match(await get(`/api/v2/addresses/${clone}`), { proxy_type: 'eip1167', implementations: [{ address_hash: getAddress(counter.address), name: null }], is_verified: false })
})

t.test('a verified contract is named and verified on transactions, transfers, logs, tokens and addresses', async (t) => {
  t.equal((await verify(verifiedToken.address, 'VerifiedToken', tokenInput)).message, 'Smart-contract verification started')
  const shown = named(verifiedToken.address, 'VerifiedToken', true)

  const detail = await get(`/api/v2/transactions/${transfer}`)
  checkSpec(t, '/v2/transactions/{transaction_hash_param}', detail)
  t.same(naming(detail.to), shown, 'transaction detail: to (the verified name wins over the token\'s)')
  t.same(detail.token_transfers.map((x: any) => [naming(x.from), naming(x.to)]), [[unnamed(deployer), unnamed(receiver)]], 'transaction detail: its transfers')

  const list = await get('/api/v2/transactions')
  checkSpec(t, '/v2/transactions', list)
  const item = list.items.find((i: { hash: string }) => i.hash === transfer)
  t.same(naming(item.to), shown, 'transaction list')
  t.same(naming((await get(`/api/v2/addresses/${deployer}/transactions`)).items.find((i: { hash: string }) => i.hash === transfer).to), shown, 'address transactions')
  t.same(naming((await get('/api/v2/main-page/transactions')).find((i: { hash: string }) => i.hash === plainTransfer).to), named(plainToken.address, 'Token B', false), 'main page')

  const logs = await get(`/api/v2/transactions/${transfer}/logs`)
  checkSpec(t, '/v2/transactions/{transaction_hash_param}/logs', logs)
  t.same(naming(logs.items[0].address), shown, 'log address')
  t.same(naming(logs.items[0].smart_contract), shown, 'log smart_contract')
  t.same(naming((await get(`/api/v2/addresses/${verifiedToken.address}/logs`)).items[0].address), shown, 'address logs')

  const address = await get(`/api/v2/addresses/${verifiedToken.address}`)
  checkSpec(t, '/v2/addresses/{address_hash_param}', address)
  t.same(naming(address), shown, 'address detail')
  t.equal(address.token.name, 'Token A', 'the token object keeps the token\'s own name')

  const transfers = await get(`/api/v2/tokens/${verifiedToken.address}/transfers`)
  checkSpec(t, '/v2/tokens/{address_hash_param}/transfers', transfers)
  t.same(transfers.items.map((x: any) => naming(x.to)), [unnamed(receiver), unnamed(deployer)], 'token transfers (accounts stay unnamed)')
})

t.test('internal transactions name the verified implementation; a bytecode twin is not verified on address objects, as in Blockscout', async (t) => {
  t.equal((await verify(counter.address, 'Proxies.sol:Counter', proxiesInput)).message, 'Smart-contract verification started')
  t.equal((await verify(child1, 'Child', proxiesInput)).message, 'Smart-contract verification started')
  const calls = await get(`/api/v2/transactions/${viaProxy}/internal-transactions`)
  checkSpec(t, '/v2/transactions/{transaction_hash_param}/internal-transactions', calls)
  t.same(calls.items.map((i: any) => [naming(i.from), naming(i.to)]), [[unnamed(proxy.address), named(counter.address, 'Counter', true)]])
  const made = await get(`/api/v2/addresses/${factory.address}/internal-transactions`)
  const created = made.items.map((i: any) => naming(i.created_contract)).filter((o: { hash: string }) => [child1, child2].includes(o.hash.toLowerCase()))
  t.same(created.sort((a: { hash: string }, b: { hash: string }) => a.hash.localeCompare(b.hash)),
    [named(child1, 'Child', true), unnamed(child2)].sort((a, b) => a.hash.localeCompare(b.hash)), 'created contracts: the verified child, and its unverified twin')
  t.same(naming(await get(`/api/v2/addresses/${child2}`)), unnamed(child2), 'the twin\'s address detail')
  t.equal((await get(`/api/v2/smart-contracts/${child2}`)).is_verified, true, 'while its contract page shows it verified by similarity')
})

t.test('address detail of proxies: kind, implementations named once verified; a verified clone\'s implementation makes it verified', async (t) => {
  const slotProxy = await get(`/api/v2/addresses/${proxy.address}`)
  checkSpec(t, '/v2/addresses/{address_hash_param}', slotProxy)
  t.match(slotProxy, { proxy_type: 'eip1967', implementations: [{ address_hash: getAddress(counter.address), name: 'Counter' }], is_verified: false, name: null })
  const minimal = await get(`/api/v2/addresses/${clone}`)
  t.match(minimal, { proxy_type: 'eip1167', implementations: [{ address_hash: getAddress(counter.address), name: 'Counter' }], is_verified: true, name: null })
  t.match(await get(`/api/v2/addresses/${counter.address}`), { proxy_type: null, implementations: [], is_verified: true, name: 'Counter' }, 'the implementation is no proxy')
  t.match(await get(`/api/v2/addresses/${receiver}`), { proxy_type: null, implementations: [], is_contract: false }, 'an account')
})

t.test('an operator\'s tag shows as a public tag at once (heard through PostgreSQL), also in cached answers, and goes when removed', async (t) => {
  const tag = { address_hash: getAddress(receiver), display_name: 'Test  Faucet', label: 'test-faucet' }
  // Cached answers (plugins/http-cache) first: the tag must clear them.
  const before = await get(`/api/v2/addresses/${receiver}`)
  t.same(before.public_tags, [])
  await runTag(app.db.knex, { address: receiver, tag: 'Test  Faucet' }, () => {})
  const detail = await eventually(async () => await get(`/api/v2/addresses/${receiver}`), (a) => a.public_tags.length > 0)
  checkSpec(t, '/v2/addresses/{address_hash_param}', detail)
  t.same(naming(detail), { hash: getAddress(receiver), name: null, is_verified: false, public_tags: [tag] }, 'address detail (cached before)')
  t.same(naming((await get(`/api/v2/transactions/${transfer}`)).token_transfers[0].to).public_tags, [tag], 'a transfer in the transaction detail')
  const holders = await get(`/api/v2/tokens/${verifiedToken.address}/holders`)
  checkSpec(t, '/v2/tokens/{address_hash_param}/holders', holders)
  t.same(holders.items.map((h: any) => [h.address.hash, h.address.public_tags]).sort(), [[getAddress(deployer), []], [getAddress(receiver), [tag]]].sort(), 'token holders')
  t.same(naming((await get('/api/v2/token-transfers')).items.find((x: any) => x.transaction_hash === transfer).to).public_tags, [tag], 'token transfers')

  await runTag(app.db.knex, { address: verifiedToken.address, tag: 'Issuer' }, () => {})
  const issuer = [{ address_hash: getAddress(verifiedToken.address), display_name: 'Issuer', label: 'issuer' }]
  const contract = await eventually(async () => await get(`/api/v2/addresses/${verifiedToken.address}`), (a) => a.public_tags.length > 0)
  t.same(naming(contract), { ...named(verifiedToken.address, 'VerifiedToken', true), public_tags: issuer }, 'a verified contract keeps its name beside its tag')
  const verifiedList = await get('/api/v2/smart-contracts')
  t.same(naming(verifiedList.items.find((i: any) => i.address.hash === getAddress(verifiedToken.address)).address), naming(contract), 'the verified contracts\' list')

  await runTag(app.db.knex, { address: verifiedToken.address, tag: undefined }, () => {})
  await runTag(app.db.knex, { address: receiver, tag: undefined }, () => {})
  const after = await eventually(async () => await get(`/api/v2/addresses/${receiver}`), (a) => a.public_tags.length === 0)
  t.same(after.public_tags, [], 'untagged')
})

t.test('block miners, state changes, NFT owners and the socket\'s pushes name addresses too', async (t) => {
  const socket = new Socket(`${url.replace('http', 'ws')}/socket/v2`, { transport: WebSocket as never, reconnectAfterMs: () => 100 })
  socket.connect()
  t.teardown(() => socket.disconnect())
  const channel = socket.channel(`addresses:${receiver}`, {})
  await new Promise((resolve, reject) => { channel.join().receive('ok', resolve).receive('error', reject) })
  const pushed: any[] = []
  channel.on('token_transfer', (payload) => { pushed.push(...payload.token_transfers) })

  const signer = (await get('/api/v2/blocks')).items[0].miner.hash
  await runTag(app.db.knex, { address: receiver, tag: 'Receiver' }, () => {})
  await runTag(app.db.knex, { address: signer, tag: 'Sealer' }, () => {})
  t.teardown(async () => {
    for (const address of [receiver, signer]) await runTag(app.db.knex, { address, tag: undefined }, () => {})
  })
  const receiverTags = [{ address_hash: getAddress(receiver), display_name: 'Receiver', label: 'receiver' }]
  const sealerTags = [{ address_hash: signer, display_name: 'Sealer', label: 'sealer' }]
  const nftCode = await compileContract(new URL('../../fixtures/contracts/TestNft.sol', import.meta.url), 'TestNft')
  const nft = await sender.deploy(nftCode.bytecode)
  await sender.send(nft.address, new Interface(nftCode.abi as never).encodeFunctionData('mint', [receiver, 1n]))
  const pay = await sender.send(verifiedToken.address, token.abi.encodeFunctionData('transfer', [receiver, 1n]))
  await waitForIndexed(app)

  const blocks = await eventually(async () => await get('/api/v2/blocks'), (b) => b.items[0].miner.public_tags.length > 0)
  t.same(blocks.items[0].miner.public_tags, sealerTags, 'block list')
  t.same((await get('/api/v2/main-page/blocks'))[0].miner.public_tags, sealerTags, 'main page blocks')
  t.same((await get(`/api/v2/blocks/${blocks.items[0].height}`)).miner.public_tags, sealerTags, 'block detail')
  t.same((await get(`/api/v2/addresses/${signer}/blocks-validated`)).items[0].miner.public_tags, sealerTags, 'blocks validated')

  const changes = await get(`/api/v2/transactions/${pay}/state-changes`)
  checkSpec(t, '/v2/transactions/{transaction_hash_param}/state-changes', changes)
  t.same(changes.items.filter((c: any) => c.address.hash === getAddress(receiver)).map((c: any) => c.address.public_tags), [receiverTags], 'state changes')
  t.same((await get(`/api/v2/tokens/${nft.address}/instances/1`)).owner.public_tags, receiverTags, 'instance owner')
  t.same((await get(`/api/v2/tokens/${nft.address}/instances`)).items[0].owner.public_tags, receiverTags, 'instances\' owners')

  const heard = await eventually(async () => pushed.find((x) => x.transaction_hash === pay), (x) => x !== undefined)
  t.same(naming(heard.to), { hash: getAddress(receiver), name: null, is_verified: false, public_tags: receiverTags }, 'the socket\'s token_transfer')
})

t.test('a page\'s names are read in one query, and kept for the next page', async (t) => {
  // A spy on the app's own query (it still runs): how often the page asks, and for how many addresses.
  const reads: number[] = []
  const queries = app.queries
  const readAddressNames = queries.readAddressNames
  queries.readAddressNames = async (addresses) => { reads.push(addresses.length); return await readAddressNames(addresses) }
  t.teardown(() => { queries.readAddressNames = readAddressNames })
  // The last test's untagging is heard a moment later, and would empty the names between the two reads:
  // a notice of our own, delivered after those on the same connection, says they are all heard.
  const heard = new Promise<void>((resolve) => { const stop = app.addressNames.onChange(() => { stop(); resolve() }) })
  await announceNameChange(app.db.knex, receiver)
  await heard
  app.addressNames.forget()
  const page = await get('/api/v2/token-transfers')
  const shown = new Set(page.items.flatMap((x: any) => [x.from.hash, x.to.hash]))
  t.ok(shown.size >= 3, 'a page with several addresses')
  t.same(reads, [shown.size], 'one read for the whole page')
  await get('/api/v2/token-transfers')
  t.same(reads, [shown.size], 'the next read of the same addresses asks nothing')
})
