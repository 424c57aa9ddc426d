// NFT metadata on a real chain: an ERC-721 whose ids name their documents in
// every way tokens do (HTTP, a redirect, IPFS through the gateway, base64 and
// plain data: URIs) or badly (too large, not JSON, empty, reverting), and an
// ERC-1155 whose uri(id) is a template. The documents are served by a real
// HTTP server on this machine, which the test allows (private addresses are
// refused by default: test/core/nft-metadata/guarded-fetch.test.ts).
import t from 'tap'
import { createServer } from 'node:http'
import { Interface, getCreateAddress } from 'ethers'
import { build } from '../../helper.ts'
import { sendRound, sign, writeFundedAlloc } from '../../support/blocks.ts'
import { compileContract } from '../../support/contracts.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { checkSpec } from '../../support/openapi.ts'
import { deleteBlocksAbove } from '../../../core/indexer/store.ts'
import { createNftMetadataFetcher } from '../../../core/nft-metadata/fetcher.ts'

const ONE = { name: 'One', image: 'https://images.example/1.png', external_url: 'https://example.org/1', animation_url: 'https://media.example/1.mp4' }
const TWO = { name: 'Two', image: 'ipfs://QmImage/2.png' }
const THREE = { name: 'Three', image: 'data:image/svg+xml;base64,PHN2Zy8+' }
const MULTI = { name: 'Forty-two', image_url: 'https://images.example/42.png' }
const MULTI_ID = 42n
const TEN = { name: 'Ten', image: 'https://images.example/10.png' }

const requests = new Map<string, number>()
const server = createServer((request, response) => {
  const path = request.url ?? ''
  requests.set(path, (requests.get(path) ?? 0) + 1)
  const json = (body: unknown) => response.setHeader('content-type', 'application/json').end(JSON.stringify(body))
  if (path === '/meta/1.json') return json(ONE)
  if (path === '/meta/10.json') return json(TEN)
  if (path === '/redirect') return response.writeHead(302, { location: '/meta/1.json' }).end()
  if (path === '/ipfs/QmMeta/2.json') return json(TWO)
  if (path === `/multi/${MULTI_ID.toString(16).padStart(64, '0')}.json`) return json(MULTI)
  if (path === '/big.json') return json({ name: 'Big', padding: 'x'.repeat(2 * 1024 * 1024) })
  if (path === '/notjson') return response.end('hello')
  response.writeHead(404).end()
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
t.teardown(() => { server.close() })
const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`

const { wallets, allocFile } = await writeFundedAlloc(t, 1)
const deployer = wallets[0]!
const { app } = await build(t, { GENESIS_ALLOC: allocFile, NFT_METADATA_ALLOW_PRIVATE_HOSTS: 'true', NFT_METADATA_IPFS_GATEWAY: `${base}/ipfs/` })
const rpc = app.geth.rpc
const source = new URL('../../fixtures/contracts/TestMetadataNft.sol', import.meta.url)
const [nftCode, multiCode] = await Promise.all([compileContract(source, 'TestMetadataNft'), compileContract(source, 'TestMetadataMulti')])
const nftAbi = new Interface(nftCode.abi as never)
const multiAbi = new Interface(multiCode.abi as never)
let nonce = Number(await rpc.call<string>('eth_getTransactionCount', [deployer.address, 'pending']))
const tx = async (fields: { to?: string, data: string, gasLimit?: bigint }) => await sign(deployer, { gasLimit: 3_000_000n, ...fields, nonce: nonce++ })

const nft = getCreateAddress({ from: deployer.address, nonce })
const deployNft = await tx({ data: nftCode.bytecode })
const multi = getCreateAddress({ from: deployer.address, nonce })
const deployMulti = await tx({ data: multiCode.bytecode + multiAbi.encodeDeploy([`${base}/multi/{id}.json`]).slice(2) })
const deployBlock = await sendRound(rpc, [deployNft, deployMulti])

const URIS: Record<number, string> = {
  1: `${base}/meta/1.json`,
  2: 'ipfs://QmMeta/2.json',
  3: `data:application/json;base64,${Buffer.from(JSON.stringify(THREE)).toString('base64')}`,
  4: `data:application/json,${encodeURIComponent(JSON.stringify({ name: 'Four' }))}`,
  5: `${base}/redirect`,
  6: `${base}/big.json`,
  7: `${base}/notjson`,
  8: '',
  9: 'data:application/json;utf8,{"name":"Nine","description":"50% off"}'
}
const mints = []
for (const [id, uri] of Object.entries(URIS)) mints.push(await tx({ to: nft, data: nftAbi.encodeFunctionData('mint', [deployer.address, id, uri]) }))
mints.push(await tx({ to: multi, data: multiAbi.encodeFunctionData('mint', [deployer.address, MULTI_ID, 3]) }))
await sendRound(rpc, mints)
await waitForIndexed(app)

// The gateway reads minted ids in the background (core/nft-metadata/fetcher.ts):
// every id has its row, a document or a failure, before the tests below ask.
const minted = Object.keys(URIS).length + 1
for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
  if (Number((await app.db.knex('token_instance_metadata').count('* as n').first())!.n) === minted) break
  await new Promise((resolve) => setTimeout(resolve, 50))
}

const get = async (path: string) => await app.inject({ method: 'GET', url: path })
const instance = async (token: string, id: number | bigint) => {
  const response = await get(`/api/v2/tokens/${token}/instances/${id}`)
  t.equal(response.statusCode, 200, `${token} ${id}`)
  checkSpec(t, '/v2/tokens/{address_hash_param}/instances/{token_id_param}', response.json())
  return response.json()
}

t.test('every minted id was read in the background', async (t) => {
  t.equal(Number((await app.db.knex('token_instance_metadata').count('* as n').first())!.n), minted)
})

t.test('a document over HTTP: the metadata and its media links, read once', async (t) => {
  const body = await instance(nft, 1)
  t.same(body.metadata, ONE)
  t.equal(body.image_url, ONE.image)
  t.equal(body.animation_url, ONE.animation_url)
  t.equal(body.external_app_url, ONE.external_url)
  t.equal(body.media_url, ONE.image)
  t.same((await instance(nft, 1)).metadata, ONE, 'asked again')
  t.equal(requests.get('/meta/1.json'), 1 + requests.get('/redirect')!, 'the document was read once for id 1 (and once for id 5, whose URI redirects to it), then kept')
})

t.test('IPFS through the gateway, data: URIs, a redirect', async (t) => {
  t.same((await instance(nft, 2)).metadata, TWO)
  t.equal(requests.get('/ipfs/QmMeta/2.json'), 1, 'ipfs://QmMeta/2.json read at the gateway')
  const three = await instance(nft, 3)
  t.same(three.metadata, THREE)
  t.equal(three.image_url, THREE.image)
  t.same((await instance(nft, 4)).metadata, { name: 'Four' })
  t.same((await instance(nft, 9)).metadata, { name: 'Nine', description: '50% off' }, 'plain JSON in a data: URI, a bare % in it')
  t.same((await instance(nft, 5)).metadata, ONE, 'followed to the document')
  t.equal(requests.get('/redirect'), 1)
})

t.test('an ERC-1155 template gets the id as 64 hex digits', async (t) => {
  const body = await instance(multi, MULTI_ID)
  t.same(body.metadata, MULTI)
  t.equal(body.image_url, MULTI.image_url)
})

t.test('what is no metadata answers null, and is not read again at once', async (t) => {
  for (const id of [6, 7, 8]) {
    const body = await instance(nft, id)
    t.equal(body.metadata, null, `id ${id}`)
    t.equal(body.image_url, null)
  }
  await instance(nft, 7)
  t.equal(requests.get('/notjson'), 1, 'a failed read waits before it is tried again')
  const stored = await app.db.knex('token_instance_metadata').where('token_id', 6).first('error')
  t.match(stored.error, /larger|size|exceed/i, 'the reason is kept')
})

t.test('lists show what was read', async (t) => {
  const body = (await get(`/api/v2/tokens/${nft}/instances`)).json()
  const byId = new Map(body.items.map((i: { id: string, metadata: unknown }) => [i.id, i.metadata]))
  t.same(byId.get('1'), ONE)
  t.same(byId.get('3'), THREE)
  t.equal(byId.get('8'), null)
  checkSpec(t, '/v2/tokens/{address_hash_param}/instances', body)
})

const listed = async (id: string) => ((await get(`/api/v2/tokens/${nft}/instances`)).json().items as Array<{ id: string, metadata: unknown }>).find((i) => i.id === id)

t.test('an id minted while the gateway runs is read in the background, before anyone asks for it', async (t) => {
  await sendRound(rpc, [await tx({ to: nft, data: nftAbi.encodeFunctionData('mint', [deployer.address, 10, `${base}/meta/10.json`]) })])
  await waitForIndexed(app)
  const deadline = Date.now() + 10_000
  while ((await listed('10'))?.metadata === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  t.same((await listed('10'))?.metadata, TEN, 'the list shows it; no one opened the id')
  t.equal(requests.get('/meta/10.json'), 1, 'read once')
})

t.test('a sweep reads every mint without metadata, once; a backfill far behind reads nothing', async (t) => {
  const fetcher = createNftMetadataFetcher({ db: app.db.knex, reader: app.nftMetadata, log: app.log })
  t.teardown(async () => await fetcher.close())
  await app.db.knex('token_instance_metadata').whereIn('token_id', ['1', '3']).delete()
  const before = requests.get('/meta/1.json')
  const mintOfOne = { token_address: nft.toLowerCase(), token_type: 'ERC-721', from: `0x${'00'.repeat(20)}`, token_id: '1' }
  fetcher.onBlocks([{ tokenTransfers: [mintOfOne] }], 500)
  await fetcher.idle()
  t.equal((await listed('1'))?.metadata, null, '500 blocks behind: not read')
  t.equal(requests.get('/meta/1.json'), before)
  fetcher.onBlocks([], 0)
  await fetcher.idle()
  t.same((await listed('1'))?.metadata, ONE, 'following the head: the sweep finds it')
  t.same((await listed('3'))?.metadata, THREE)
  t.equal(requests.get('/meta/1.json'), before! + 1, 'read once')
  fetcher.onBlocks([], 0)
  await fetcher.idle()
  t.equal(requests.get('/meta/1.json'), before! + 1, 'a finished sweep does not walk the mints again')
})

t.test('ids dropped from a full queue are read by the sweep\'s next passes, one commit apart', async (t) => {
  const fetcher = createNftMetadataFetcher({ db: app.db.knex, reader: app.nftMetadata, log: app.log, maxQueued: 1 })
  t.teardown(async () => await fetcher.close())
  fetcher.onBlocks([], 0)
  await fetcher.idle()
  const ids = ['1', '3', '4']
  await app.db.knex('token_instance_metadata').whereIn('token_id', ids).delete()
  const mint = (id: string) => ({ token_address: nft.toLowerCase(), token_type: 'ERC-721', from: `0x${'00'.repeat(20)}`, token_id: id })
  const read = async () => (await app.db.knex('token_instance_metadata').whereIn('token_id', ids).pluck('token_id')).map(String).sort()
  // A queue of one: the batch's first mint waits, the others are dropped.
  fetcher.onBlocks([{ tokenTransfers: ids.map(mint) }], 0)
  await fetcher.idle()
  t.same(await read(), ['1', '4'], 'the queued id, then the newest other from a pass over the mints (newest first)')
  fetcher.onBlocks([], 0)
  await fetcher.idle()
  t.same(await read(), ids, 'the next commit, the next pass: every id read')
})

t.test('blocks taken back take the metadata of the ids they moved with them', async (t) => {
  t.ok(Number((await app.db.knex('token_instance_metadata').count('* as n').first())!.n) > 0)
  // Every mint came after the deployments.
  await deleteBlocksAbove(app.db.knex, deployBlock)
  t.equal(Number((await app.db.knex('token_instance_metadata').count('* as n').first())!.n), 0)
})

t.test('a read that ends after its id was taken back keeps nothing', async (t) => {
  // The index no longer has the mint of id 1 (the test above), the node still does: the read succeeds, and is not kept.
  t.same(await app.nftMetadata.read(Buffer.from(nft.slice(2), 'hex'), '1', 'ERC-721'), ONE)
  t.equal(Number((await app.db.knex('token_instance_metadata').count('* as n').first())!.n), 0)
})
