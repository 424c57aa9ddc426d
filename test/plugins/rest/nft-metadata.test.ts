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

const ONE = { name: 'One', image: 'https://images.example/1.png', external_url: 'https://example.org/1', animation_url: 'https://media.example/1.mp4' }
const TWO = { name: 'Two', image: 'ipfs://QmImage/2.png' }
const THREE = { name: 'Three', image: 'data:image/svg+xml;base64,PHN2Zy8+' }
const MULTI = { name: 'Forty-two', image_url: 'https://images.example/42.png' }
const MULTI_ID = 42n

const requests = new Map<string, number>()
const server = createServer((request, response) => {
  const path = request.url ?? ''
  requests.set(path, (requests.get(path) ?? 0) + 1)
  const json = (body: unknown) => response.setHeader('content-type', 'application/json').end(JSON.stringify(body))
  if (path === '/meta/1.json') return json(ONE)
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

const get = async (path: string) => await app.inject({ method: 'GET', url: path })
const instance = async (token: string, id: number | bigint) => {
  const response = await get(`/api/v2/tokens/${token}/instances/${id}`)
  t.equal(response.statusCode, 200, `${token} ${id}`)
  checkSpec(t, '/v2/tokens/{address_hash_param}/instances/{token_id_param}', response.json())
  return response.json()
}

t.test('a document over HTTP: the metadata and its media links, read once', async (t) => {
  const body = await instance(nft, 1)
  t.same(body.metadata, ONE)
  t.equal(body.image_url, ONE.image)
  t.equal(body.animation_url, ONE.animation_url)
  t.equal(body.external_app_url, ONE.external_url)
  t.equal(body.media_url, ONE.image)
  t.same((await instance(nft, 1)).metadata, ONE, 'asked again')
  t.equal(requests.get('/meta/1.json'), 1, 'the document was read once, then kept')
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

t.test('blocks taken back take the metadata of the ids they moved with them', async (t) => {
  t.ok(Number((await app.db.knex('token_instance_metadata').count('* as n').first())!.n) > 0)
  // Every mint came after the deployments.
  await deleteBlocksAbove(app.db.knex, deployBlock)
  t.equal(Number((await app.db.knex('token_instance_metadata').count('* as n').first())!.n), 0)
})
