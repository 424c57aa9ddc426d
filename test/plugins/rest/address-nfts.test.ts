// REST /addresses/{hash}/nft and /nft/collections on a real chain: two ERC-721
// collections and an ERC-1155 one, with ids minted, sent on and partly spent;
// every id and amount checked against the contracts, the order and cursors
// Blockscout's (ERC-721 first, collection address ascending, id descending),
// shapes from Blockscout's OpenAPI spec, the list walked to its end.
import t from 'tap'
import { Interface, Wallet, getAddress, getCreateAddress } from 'ethers'
import { build } from '../../helper.ts'
import { sendRound, sign, writeFundedAlloc } from '../../support/blocks.ts'
import { compileContract } from '../../support/contracts.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { OPENAPI_SPEC_PRESENT, checkSpec } from '../../support/openapi.ts'
import { checkBadInput, walkList } from '../../support/rest.ts'

const fixture = (name: string) => new URL(`../../fixtures/contracts/${name}.sol`, import.meta.url)
const NFT_A_IDS = 60
const MULTI_IDS = 12
const GAS = 300_000n
const DEPLOY_GAS = 1_500_000n

const { wallets, allocFile } = await writeFundedAlloc(t, 3)
const [deployer, holder, other] = wallets as [Wallet, Wallet, Wallet]
const { app } = await build(t, { GENESIS_ALLOC: allocFile })
const rpc = app.geth.rpc
const [nftCode, multiCode] = await Promise.all([compileContract(fixture('TestNft'), 'TestNft'), compileContract(fixture('TestMulti'), 'TestMulti')])
const nftAbi = new Interface(nftCode.abi as never)
const multiAbi = new Interface(multiCode.abi as never)
const nonces = new Map<Wallet, number>()
const nextNonce = async (w: Wallet): Promise<number> => {
  const n = nonces.get(w) ?? Number(await rpc.call<string>('eth_getTransactionCount', [w.address, 'pending']))
  nonces.set(w, n + 1)
  return n
}
const deploy = async (bytecode: string): Promise<{ address: string, raw: string }> => {
  const nonce = await nextNonce(deployer)
  return { address: getCreateAddress({ from: deployer.address, nonce }), raw: await sign(deployer, { data: bytecode, gasLimit: DEPLOY_GAS, nonce }) }
}
const send = async (from: Wallet, to: string, data: string) => await sign(from, { to, data, gasLimit: GAS, nonce: await nextNonce(from) })

const deployed = [await deploy(nftCode.bytecode), await deploy(nftCode.bytecode), await deploy(multiCode.bytecode)]
await sendRound(rpc, deployed.map((d) => d.raw))
const [nftA, nftB, multi] = deployed.map((d) => d.address) as [string, string, string]
// The holder gets nftA 1..60, nftB 5..7 and ERC-1155 ids 1..12 (id n: 10n units); the other address some of each.
await sendRound(rpc, [
  ...await Promise.all(Array.from({ length: NFT_A_IDS }, async (_, i) => await send(deployer, nftA, nftAbi.encodeFunctionData('mint', [holder.address, i + 1])))),
  ...await Promise.all([5, 6, 7].map(async (id) => await send(deployer, nftB, nftAbi.encodeFunctionData('mint', [holder.address, id])))),
  await send(deployer, nftB, nftAbi.encodeFunctionData('mint', [other.address, 8])),
  ...await Promise.all(Array.from({ length: MULTI_IDS }, async (_, i) => await send(deployer, multi, multiAbi.encodeFunctionData('mint', [holder.address, i + 1, 10 * (i + 1)])))),
  await send(deployer, multi, multiAbi.encodeFunctionData('mint', [other.address, 13, 130]))
])
// Then sends nftA 60 and all of id 12 on, and 5 units of id 11: neither 60 nor 12 is the holder's any more.
await sendRound(rpc, [
  await send(holder, nftA, nftAbi.encodeFunctionData('transferFrom', [holder.address, other.address, NFT_A_IDS])),
  await send(holder, multi, multiAbi.encodeFunctionData('safeTransferFrom', [holder.address, other.address, 12, 120, '0x'])),
  await send(holder, multi, multiAbi.encodeFunctionData('safeTransferFrom', [holder.address, other.address, 11, 5, '0x']))
])
await waitForIndexed(app)
const get = async (path: string) => await app.inject({ method: 'GET', url: path })
const call = async (to: string, data: string) => await rpc.call<string>('eth_call', [{ to, data }, 'latest'])
if (!OPENAPI_SPEC_PRESENT) t.comment('../shared/api is absent: responses are not checked against Blockscout\'s OpenAPI spec')

const [lowerNft, higherNft] = [nftA, nftB].sort((a, b) => a.toLowerCase() < b.toLowerCase() ? -1 : 1) as [string, string]
const heldIds = (nft: string): number[] => nft === nftA ? Array.from({ length: NFT_A_IDS - 1 }, (_, i) => NFT_A_IDS - 1 - i) : [7, 6, 5]
/** Blockscout's order: ERC-721 collections by address, ids descending; then ERC-1155. */
const expected = [
  ...[lowerNft, higherNft].flatMap((nft) => heldIds(nft).map((id) => `${getAddress(nft)}:${id}`)),
  ...Array.from({ length: MULTI_IDS - 1 }, (_, i) => `${getAddress(multi)}:${MULTI_IDS - 1 - i}`)
]

type Instance = { id: string, value: string, token_type: string, is_unique: boolean, owner: { hash: string } | null, token: { address_hash: string, type: string } }
type Collection = { token: { address_hash: string, type: string }, amount: string, token_instances: Instance[] }

/** What the contract says the holder has of the item's id. */
async function onChain (item: Instance): Promise<string> {
  if (item.token_type === 'ERC-721') {
    const owner = nftAbi.decodeFunctionResult('ownerOf', await call(item.token.address_hash, nftAbi.encodeFunctionData('ownerOf', [item.id])))[0] as string
    return owner === holder.address ? '1' : '0'
  }
  return BigInt(await call(item.token.address_hash, multiAbi.encodeFunctionData('balanceOf', [item.id, holder.address]))).toString()
}

t.test('GET /api/v2/addresses/{hash}/nft walks every id the address holds, in Blockscout\'s order', async (t) => {
  const path = `/api/v2/addresses/${holder.address}/nft`
  const spec = '/v2/addresses/{address_hash_param}/nft'
  const { items, pages } = await walkList<Instance>(t, app, path, spec)
  t.equal(pages.length, 2, `${expected.length} ids: two pages`)
  t.same(Object.keys(pages[0]!.next_page_params!).sort(), ['items_count', 'token_contract_address_hash', 'token_id', 'token_type'])
  t.equal(pages[0]!.next_page_params!.token_contract_address_hash, (pages[0]!.next_page_params!.token_contract_address_hash as string).toLowerCase(), 'the cursor address is lowercase')
  t.same(items.map((i) => `${i.token.address_hash}:${i.id}`), expected, 'ERC-721 collections by address, ids descending, then the ERC-1155 ids')
  for (const item of items) {
    t.equal(item.value, await onChain(item), `${item.token_type} ${item.token.address_hash} ${item.id}: what the contract says`)
    t.equal(item.token_type, item.token.type)
  }
  const nft = items.find((i) => i.token_type === 'ERC-721')!
  t.match(nft, { is_unique: true, owner: { hash: holder.address } }, 'an ERC-721 id is unique and the holder owns it')
  t.match(items.find((i) => i.token_type === 'ERC-1155' && i.id === '11')!, { value: '105', is_unique: false, owner: null })

  const multiOnly = await walkList<Instance>(t, app, path, spec, { type: 'ERC-1155' })
  t.same(multiOnly.items.map((i) => i.id), Array.from({ length: MULTI_IDS - 1 }, (_, i) => String(MULTI_IDS - 1 - i)), 'type=ERC-1155: the ERC-1155 ids alone')
  const nftsOnly = await walkList<Instance>(t, app, path, spec, { type: '[ERC-721]' })
  t.equal(nftsOnly.items.length, NFT_A_IDS - 1 + 3)
  t.same((await get(`${path}?type=ERC-20`)).json(), { items: [], next_page_params: null }, 'ERC-20 has no NFTs')

  const jump = (await get(`${path}?token_contract_address_hash=${multi.toLowerCase()}&token_id=6&token_type=ERC-1155&items_count=50`)).json()
  checkSpec(t, spec, jump)
  t.same(jump.items.map((i: Instance) => i.id), ['5', '4', '3', '2', '1'], 'an ERC-1155 cursor reads on within its type')
  const second = (await get(`${path}?token_contract_address_hash=${lowerNft.toLowerCase()}&token_id=0&token_type=ERC-721`)).json()
  t.same(second.items.map((i: Instance) => `${i.token.address_hash}:${i.id}`), expected.slice(heldIds(lowerNft).length, heldIds(lowerNft).length + 50),
    'an ERC-721 cursor past a collection\'s last id reads the next collection')
  t.same((await get(`/api/v2/addresses/${Wallet.createRandom().address}/nft`)).json(), { items: [], next_page_params: null }, 'an unknown address holds nothing')
})

t.test('GET /api/v2/addresses/{hash}/nft/collections lists each collection with its nine highest ids', async (t) => {
  const path = `/api/v2/addresses/${holder.address}/nft/collections`
  const spec = '/v2/addresses/{address_hash_param}/nft/collections'
  const { items } = await walkList<Collection>(t, app, path, spec)
  t.same(items.map((c) => [c.token.address_hash, c.token.type, c.amount]), [
    [getAddress(lowerNft), 'ERC-721', String(heldIds(lowerNft).length)],
    [getAddress(higherNft), 'ERC-721', String(heldIds(higherNft).length)],
    [getAddress(multi), 'ERC-1155', String(MULTI_IDS - 1)]
  ], 'ERC-721 collections by address (amount: ids held), then ERC-1155 (amount: distinct ids)')
  for (const c of items) {
    const ids = c.token.type === 'ERC-721' ? heldIds(c.token.address_hash) : Array.from({ length: MULTI_IDS - 1 }, (_, i) => MULTI_IDS - 1 - i)
    t.same(c.token_instances.map((i) => i.id), ids.slice(0, 9).map(String), `${c.token.address_hash}: the nine highest ids`)
    for (const i of c.token_instances) t.equal(i.value, await onChain(i), `${c.token.address_hash} ${i.id}`)
  }
  const after = (await get(`${path}?token_contract_address_hash=${lowerNft.toLowerCase()}&token_type=ERC-721&items_count=50`)).json()
  checkSpec(t, spec, after)
  t.same(after.items.map((c: Collection) => c.token.address_hash), [getAddress(higherNft), getAddress(multi)], 'a cursor reads the collections after it')
  const multiOnly = (await get(`${path}?type=ERC-1155`)).json()
  t.same(multiOnly.items.map((c: Collection) => c.token.address_hash), [getAddress(multi)])
  const others = (await get(`/api/v2/addresses/${other.address}/nft/collections`)).json()
  t.same(others.items.map((c: Collection) => [c.token.address_hash, c.amount, c.token_instances.map((i) => `${i.id}:${i.value}`)]), [
    ...[lowerNft, higherNft].map((nft) => [getAddress(nft), '1', [nft === nftA ? `${NFT_A_IDS}:1` : '8:1']]),
    [getAddress(multi), '3', ['13:130', '12:120', '11:5']]
  ], 'what the holder sent on is the other address\'s')
})

t.test('bad input to the NFT lists', async (t) => {
  const base = `/api/v2/addresses/${holder.address}`
  await checkBadInput(t, get, {
    invalid: [
      ['/api/v2/addresses/0x12/nft', '/address_hash_param'],
      [`${base}/nft?token_type=ERC-9`, '/token_type'],
      [`${base}/nft?token_id=abc`, '/token_id'],
      [`${base}/nft?token_contract_address_hash=0xzz`, '/token_contract_address_hash'],
      [`${base}/nft/collections?token_id=1`, '/token_id'],
      [`${base}/nft?type=ERC-9`, '/type']
    ],
    harmless: [
      `${base}/nft?token_contract_address_hash=${holder.address}&token_id=-5&token_type=ERC-721`,
      `${base}/nft?token_contract_address_hash=${holder.address}&token_id=${'9'.repeat(78)}&token_type=ERC-404`,
      `${base}/nft?token_contract_address_hash=${holder.address}&token_id=1&token_type=ERC-20`,
      `${base}/nft/collections?token_contract_address_hash=${holder.address}&token_type=ERC-7984`
    ]
  })
})
