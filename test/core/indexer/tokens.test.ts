// Token transfers, tokens, token balances and addresses: stored values match the contracts and the node.
import t from 'tap'
import { Contract, ContractFactory, JsonRpcProvider, Wallet } from 'ethers'
import { build } from '../../helper.ts'
import { compileContract, TEST_TOKEN_SOURCE } from '../../support/contracts.ts'
import { hex, waitForIndexed } from '../../support/indexer.ts'
import { waitForReceipt } from '../../support/chain.ts'
import { fetchBlockBundles } from '../../../core/indexer/fetch.ts'
import { decodeBlockBundle } from '../../../core/indexer/decode.ts'
import { fetchTokens, type TokenMetadataCache } from '../../../core/indexer/tokens.ts'
import type { Hex } from '../../../core/indexer/types.ts'

const { app, url, chain } = await build(t)
const provider = new JsonRpcProvider(`${url}/rpc`, 793788, { staticNetwork: true, cacheTimeout: -1 })
t.teardown(() => provider.destroy())
const owner = new Wallet(chain.account.privateKey, provider)
const alice = Wallet.createRandom().connect(provider)
const bob = Wallet.createRandom().address
const db = app.db.knex
const fixture = (name: string) => new URL(`../../fixtures/contracts/${name}.sol`, import.meta.url)
const bytes = (h: string) => Buffer.from(h.slice(2), 'hex')

async function deploy (source: URL, name: string, args: unknown[] = []): Promise<Contract> {
  const compiled = await compileContract(source, name)
  const contract = await new ContractFactory(compiled.abi as never, compiled.bytecode, owner).deploy(...args)
  await waitForReceipt(provider, contract.deploymentTransaction()!.hash)
  return contract as Contract
}
async function mined (sent: Promise<{ hash: string }>): Promise<void> {
  const receipt = await waitForReceipt(provider, (await sent).hash)
  if (receipt?.status !== 1) throw new Error('transaction failed')
}

const erc20 = await deploy(TEST_TOKEN_SOURCE, 'TestToken', ['Fungible', 'FUN', 1000n])
const nft = await deploy(fixture('TestNft'), 'TestNft')
const multi = await deploy(fixture('TestMulti'), 'TestMulti')
await mined(owner.sendTransaction({ to: alice.address, value: 10n ** 18n }))
await mined(erc20.getFunction('transfer')(alice.address, 300n))
await mined((erc20.connect(alice) as Contract).getFunction('transfer')(bob, 100n))
for (const id of [1n, 2n, 3n]) await mined(nft.getFunction('mint')(owner.address, id))
await mined(nft.getFunction('transferFrom')(owner.address, alice.address, 2n))
await mined(nft.getFunction('burn')(3n))
await mined(multi.getFunction('mint')(owner.address, 7n, 50n))
await mined(multi.getFunction('mint')(owner.address, 8n, 5n))
await mined(multi.getFunction('safeTransferFrom')(owner.address, bob, 7n, 20n, '0x'))
await mined(multi.getFunction('safeBatchTransferFrom')(owner.address, alice.address, [7n, 8n], [10n, 5n], '0x'))
await waitForIndexed(app)

t.test('token transfers are decoded for ERC-20, ERC-721 and ERC-1155', async (t) => {
  const byToken = async (c: Contract) => await db('token_transfers').where('token_address', bytes(await c.getAddress())).orderBy(['block_number', 'log_index', 'batch_index'])
  const fungible = await byToken(erc20)
  t.same(fungible.map((r) => [r.token_type, hex(r.to), r.amount, r.token_id]), [
    ['ERC-20', owner.address.toLowerCase(), '1000', null],
    ['ERC-20', alice.address.toLowerCase(), '300', null],
    ['ERC-20', bob.toLowerCase(), '100', null]
  ])
  const nfts = await byToken(nft)
  t.same(nfts.map((r) => [r.token_type, r.token_id, hex(r.to)]), [
    ['ERC-721', '1', owner.address.toLowerCase()], ['ERC-721', '2', owner.address.toLowerCase()], ['ERC-721', '3', owner.address.toLowerCase()],
    ['ERC-721', '2', alice.address.toLowerCase()], ['ERC-721', '3', '0x' + '00'.repeat(20)]
  ])
  const multis = await byToken(multi)
  t.same(multis.map((r) => [r.token_type, r.token_id, r.amount, r.batch_index]), [
    ['ERC-1155', '7', '50', 0], ['ERC-1155', '8', '5', 0], ['ERC-1155', '7', '20', 0], ['ERC-1155', '7', '10', 0], ['ERC-1155', '8', '5', 1]
  ], 'a batch transfer gives one row per id')
})

t.test('a transaction is marked as moving tokens exactly when token transfers were decoded from its logs', async (t) => {
  const { rows } = await db.raw(`select t.has_token_transfers as flagged,
    exists (select 1 from token_transfers tt where tt.transaction_hash = t.hash) as moved from transactions t`)
  t.ok(rows.some((r: { flagged: boolean }) => r.flagged) && rows.some((r: { flagged: boolean }) => !r.flagged), 'the chain has both kinds')
  t.same(rows.filter((r: { flagged: boolean, moved: boolean }) => r.flagged !== r.moved), [])
})

t.test('tokens carry what their contracts answer', async (t) => {
  const token = async (c: Contract) => await db('tokens').where('address', bytes(await c.getAddress())).first()
  t.match(await token(erc20), { type: 'ERC-20', name: 'Fungible', symbol: 'FUN', decimals: 18, total_supply: '1000', holder_count: 3 })
  t.match(await token(nft), { type: 'ERC-721', name: 'Test NFT', symbol: 'TNFT', decimals: null, holder_count: 2 })
  t.match(await token(multi), { type: 'ERC-1155', holder_count: 3 })
})

t.test('fetchTokens() in two batches at once, both asking a token\'s metadata: each reads its own answers, whichever fills the cache first', async (t) => {
  // The indexer fetches batches in flight together. Here the one holding only the ERC-20's blocks
  // is answered first and fills the cache; the other, asking the ERC-20's metadata too, used to skip
  // its answers once it found it cached, and read every token after it one answer out of step.
  const rpc = app.geth.rpc
  const [fungible, nonFungible, multiToken] = await Promise.all([erc20, nft, multi].map(async (c) => (await c.getAddress()).toLowerCase() as Hex)) as [Hex, Hex, Hex]
  const head = Number(await rpc.call<string>('eth_blockNumber'))
  const fetchedBatch = async () => (await fetchBlockBundles(rpc, 1, head)).map(decodeBlockBundle)
  const everything = await fetchedBatch()
  const fungibleOnly = (await fetchedBatch()).filter((rows) => rows.tokenTransfers.every((x) => x.token_address === fungible))
  t.ok(fungibleOnly.some((rows) => rows.tokenTransfers.length > 0), 'a batch with the ERC-20 alone')
  const cache: TokenMetadataCache = new Map()
  let firstDone: () => void = () => {}
  const answeredFirst = new Promise<void>((resolve) => { firstDone = resolve })
  // Geth's own answers, held back until the other batch has used its own.
  const later = { ...rpc, batchAnswers: async (...args: Parameters<typeof rpc.batchAnswers>) => { const answers = await rpc.batchAnswers(...args); await answeredFirst; return answers } }
  await Promise.all([fetchTokens(later, everything, cache), fetchTokens(rpc, fungibleOnly, cache).then(firstDone)])
  const tokens = new Map(everything.flatMap((rows) => rows.tokens).map((row) => [row.address, row]))
  t.match(tokens.get(fungible), { name: 'Fungible', symbol: 'FUN', decimals: 18, total_supply: '1000' })
  t.match(tokens.get(nonFungible), { name: 'Test NFT', symbol: 'TNFT', decimals: null })
  t.match(tokens.get(multiToken), { type: 'ERC-1155', decimals: null })
  t.match(cache.get(nonFungible), { name: 'Test NFT', symbol: 'TNFT', decimals: null })
})

t.test('token balances equal the contracts\' own balances', async (t) => {
  const rows = await db('token_balances').select()
  for (const row of rows) {
    const token = hex(row.token_address)!
    const holder = hex(row.holder)!
    let onChain: bigint
    if (token === (await erc20.getAddress()).toLowerCase()) onChain = await erc20.getFunction('balanceOf')(holder)
    else if (token === (await nft.getAddress()).toLowerCase()) onChain = (await nft.getFunction('ownerOf')(row.token_id)).toLowerCase() === holder ? 1n : 0n
    else onChain = await multi.getFunction('balanceOf')(row.token_id, holder)
    t.equal(BigInt(row.value), onChain, `${token} ${holder} ${row.token_id}`)
  }
  t.equal(rows.length, 3 + 2 + 4, 'no zero or missing rows (owner\'s id 8 went to zero)')
})

t.test('addresses carry the node\'s balance, nonce, code and creator', async (t) => {
  const rows = await db('addresses').select()
  const signer = app.geth.keys!.signer.toLowerCase()
  t.ok(rows.some((row) => hex(row.hash) === signer), 'the clique signer, paid every transaction\'s tip, is there')
  t.ok(await provider.getBalance(signer) > 0n, 'and the node gave it tips')
  for (const row of rows) {
    const address = hex(row.hash)!
    t.equal(row.coin_balance, (await provider.getBalance(address)).toString(), `${address} balance`)
    const code = await provider.getCode(address)
    t.equal(hex(row.contract_code) ?? '0x', code, `${address} code`)
  }
  const sender = await db('addresses').where('hash', bytes(owner.address)).first()
  t.equal(Number(sender.nonce), await provider.getTransactionCount(owner.address))
  const contract = await db('addresses').where('hash', bytes(await erc20.getAddress())).first()
  t.equal(hex(contract.creator), owner.address.toLowerCase())
  t.equal(hex(contract.creation_transaction), erc20.deploymentTransaction()!.hash)
  const aliceRow = await db('addresses').where('hash', bytes(alice.address)).first()
  t.equal(Number(aliceRow.transaction_count), 2, 'alice received ether once and sent one transfer')
  t.equal(Number(aliceRow.token_transfer_count), 5, 'two ERC-20, one NFT, two ERC-1155 batch rows')
  const genesisFunded = await db('addresses').where('hash', bytes(chain.account.address)).first()
  t.equal(Number(genesisFunded.first_block), 0, 'GENESIS_ALLOC accounts appear from block 0')
})

t.test('a rewound chain leaves balances and counters equal to the node', async (t) => {
  const head = await provider.getBlockNumber()
  await app.geth.rpc.call('debug_setHead', ['0x' + (head - 4).toString(16)])
  await waitForIndexed(app)
  // The node's own nonce: debug_setHead announces no new head, so the gateway's answers for latest are those of the head it last heard until a block is sealed.
  const nonce = Number(await app.geth.rpc.call<string>('eth_getTransactionCount', [owner.address, 'latest']))
  await mined(erc20.getFunction('transfer')(bob, 1n, { nonce }))
  await waitForIndexed(app)
  for (const row of await db('token_balances').where('token_address', bytes(await erc20.getAddress()))) {
    t.equal(BigInt(row.value), await erc20.getFunction('balanceOf')(hex(row.holder)), `${hex(row.holder)} after the reorg`)
  }
  for (const row of await db('addresses').select()) {
    t.equal(row.coin_balance, (await provider.getBalance(hex(row.hash)!)).toString(), `${hex(row.hash)} balance after the reorg`)
  }
  const multiRows = await db('token_transfers').where('token_address', bytes(await multi.getAddress()))
  t.equal(multiRows.length, 0, 'the ERC-1155 transfers in the dropped blocks are gone')
  t.equal(await db('token_balances').where('token_address', bytes(await multi.getAddress())).first(), undefined)
  const sender = await db('addresses').where('hash', bytes(owner.address)).first()
  t.equal(Number(sender.nonce), await provider.getTransactionCount(owner.address))
  const counts = await db.raw('select t.holder_count, (select count(distinct holder) from token_balances b where b.token_address = t.address and b.value > 0) as actual from tokens t')
  for (const row of counts.rows) t.equal(row.holder_count, Number(row.actual), 'holder counts follow the balances through the reorg')
})
