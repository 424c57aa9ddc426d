// A gateway that does not index hears of each committed block all the same:
// the writer announces its commits (NOTIFY) and a reader reads the rows back
// and emits them. What a reader emits must equal what the writer emitted,
// row for row, so that subscribers on any instance see the same events.
import t from 'tap'
import { ContractFactory, JsonRpcProvider, Wallet, type Contract } from 'ethers'
import { build } from '../../helper.ts'
import { createIndexer, type Indexer } from '../../../core/indexer/index.ts'
import { readBackFrom } from '../../../core/indexer/commit-feed.ts'
import type { CommittedBlock } from '../../../core/indexer/types.ts'
import { compileContract, TEST_TOKEN_SOURCE } from '../../support/contracts.ts'
import { waitForReceipt } from '../../support/chain.ts'
import { waitFor } from '../../support/gateway-process.ts'

const { app, url, chain } = await build(t)
const provider = new JsonRpcProvider(`${url}/rpc`, 793788, { staticNetwork: true, cacheTimeout: -1 })
t.teardown(() => provider.destroy())
const sender = new Wallet(chain.account.privateKey, provider)

type Emitted = Map<number, CommittedBlock>
/** Every block an indexer publishes, and which it published as stored by itself. */
const published = (indexer: Indexer): Emitted & { storedHere: Set<number> } => {
  const blocks = Object.assign(new Map() as Emitted, { storedHere: new Set<number>() })
  indexer.events.subscribe((event) => {
    if (event.type !== 'block') return
    for (const committed of event.blocks) {
      blocks.set(committed.block.number, committed)
      if (event.storedHere) blocks.storedHere.add(committed.block.number)
    }
  })
  return blocks
}

await waitFor('the app to hold the indexer lock', async () => app.indexer.status().role === 'writer' ? true : undefined)
const byWriter = published(app.indexer)
const reader = createIndexer({ db: app.db.knex, databaseUrl: app.db.url, rpc: app.geth.rpc, log: app.log })
const byReader = published(reader)
reader.start()
t.teardown(async () => await reader.stop())
await waitFor('the second indexer to read', async () => reader.status().role === 'reader' ? true : undefined)

t.test('a reader emits every block the writer commits, with the rows the writer emitted', async (t) => {
  const compiled = await compileContract(TEST_TOKEN_SOURCE, 'TestToken')
  const token = await new ContractFactory(compiled.abi as never, compiled.bytecode, sender).deploy('Heard', 'HRD', 10n ** 24n) as Contract
  await waitForReceipt(provider, token.deploymentTransaction()!.hash)
  const { hash: transfer } = await token.getFunction('transfer')(Wallet.createRandom().address, 1234n) as { hash: string }
  const { hash: payment } = await sender.sendTransaction({ to: Wallet.createRandom().address, value: 5n })
  const last = Math.max((await waitForReceipt(provider, transfer)).blockNumber, (await waitForReceipt(provider, payment)).blockNumber)
  await waitFor(`the reader to emit block ${last}`, async () => byReader.has(last) ? true : undefined)
  const numbers = [...byReader.keys()].sort((a, b) => a - b)
  t.ok(numbers.length >= 2, `the reader emitted ${numbers.length} blocks`)
  for (const n of numbers) {
    const { block, transactions, tokenTransfers } = byWriter.get(n)!
    t.strictSame(byReader.get(n), { block, transactions, tokenTransfers }, `block ${n}: the reader's rows equal the writer's`)
  }
  const transfers = numbers.flatMap((n) => byReader.get(n)!.tokenTransfers)
  t.match(transfers.filter((x) => x.transaction_hash === transfer), [{ amount: '1234', token_type: 'ERC-20' }], 'the token transfer came with its block')
  t.ok(numbers.some((n) => byReader.get(n)!.transactions.some((tx) => tx.hash === payment)), 'and the payment')
  t.equal(reader.status().indexedHead, app.indexer.status().indexedHead, 'the reader\'s head follows the commits')
})

t.test('a reader whose listening connection drops reads the blocks it missed with the next commit it hears', async (t) => {
  const listenerPid = async (): Promise<number | undefined> => {
    const { rows } = await app.db.knex.raw("select pid from pg_stat_activity where query = 'listen tg_indexer_committed'")
    return rows[0]?.pid as number | undefined
  }
  const dropped = await waitFor('the reader\'s listening connection', listenerPid)
  await app.db.knex.raw('select pg_terminate_backend(?)', [dropped])
  const { hash: unheard } = await sender.sendTransaction({ to: Wallet.createRandom().address, value: 7n })
  const missedBlock = (await waitForReceipt(provider, unheard)).blockNumber
  await waitFor(`block ${missedBlock} indexed`, async () => (app.indexer.status().indexedHead ?? 0) >= missedBlock ? true : undefined)
  await waitFor('the reader to listen again', async () => { const pid = await listenerPid(); return pid !== undefined && pid !== dropped ? true : undefined })
  const { hash: heard } = await sender.sendTransaction({ to: Wallet.createRandom().address, value: 8n })
  const heardBlock = (await waitForReceipt(provider, heard)).blockNumber
  await waitFor(`the reader to emit block ${heardBlock}`, async () => byReader.has(heardBlock) ? true : undefined)
  t.ok(byReader.get(heardBlock)!.transactions.some((tx) => tx.hash === heard), `emitted block ${heardBlock}, heard after it listened again`)
  // Committed while it could not hear (unless it listened again first): read back with the next commit.
  t.ok(byReader.get(missedBlock)?.transactions.some((tx) => tx.hash === unheard), `and block ${missedBlock}`)
})

t.test('readBackFrom() reads back a gap of missed commits, up to a bound', async (t) => {
  t.equal(readBackFrom(undefined, 10, 1000), 10, 'nothing heard yet: the notice\'s own blocks')
  t.equal(readBackFrom(9, 10, 1000), 10, 'the notice follows the last heard')
  t.equal(readBackFrom(6, 10, 1000), 7, 'three blocks were committed unheard')
  t.equal(readBackFrom(12, 10, 1000), 10, 'a reorg: the writer stored from an earlier height again')
  t.equal(readBackFrom(5, 2000, 1000), 2000, 'a gap longer than the bound is not read back')
})

t.test('a reader that becomes the writer stops listening and indexes itself', async (t) => {
  await app.indexer.stop()
  await waitFor('the reader to take the lock', async () => reader.status().role === 'writer' ? true : undefined)
  const before = byReader.size
  const { hash } = await sender.sendTransaction({ to: Wallet.createRandom().address, value: 6n })
  const { blockNumber } = await waitForReceipt(provider, hash)
  await waitFor(`block ${blockNumber} emitted`, async () => byReader.has(blockNumber) ? true : undefined)
  t.ok(byReader.size > before, 'the new writer emits its own blocks')
  t.ok(byReader.storedHere.has(blockNumber), 'as stored by itself, not read back')
  t.same(Object.keys(byReader.get(blockNumber)!).sort(), ['block', 'tokenTransfers', 'transactions'], 'in the one shape every instance publishes')
})
