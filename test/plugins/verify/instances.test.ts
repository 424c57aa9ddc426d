// Two gateway instances on one database: a contract verified through one is
// decoded, named and no longer answered from stale caches on the other at
// once (a PostgreSQL notice, not a wait for some TTL): its REST detail (kept
// by the head-keyed HTTP cache), its logs, its interpretation and summary.
import t from 'tap'
import { getAddress } from 'ethers'
import { build } from '../../helper.ts'
import { writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { buildSecondInstance } from '../../support/second-instance.ts'
import { waitFor } from '../../support/gateway-process.ts'
import { BUNDLED_VERSION, compileStandard, createSender, readFixture, standardInput } from '../../support/verify.ts'
import { ABI_SOURCE_TTL_MS } from '../../../core/verify/abi-source.ts'

const { wallets, allocFile } = await writeFundedAlloc(t, 1)
const first = await build(t, { GENESIS_ALLOC: allocFile })
const second = await buildSecondInstance(t, first, { INDEXER_ENABLED: 'false' })
const sender = createSender(first.app.geth.rpc, wallets[0]!)

const input = standardInput({ 'Showcase.sol': await readFixture('Showcase.sol') })
const showcase = compileStandard(input, 'Showcase.sol', 'Showcase')
const contract = await sender.deploy(showcase.bytecode)
const call = await sender.send(contract.address, showcase.abi.encodeFunctionData('note', ['hello', [wallets[0]!.address, [3n], '0x'], [`0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`], false, 1]))
await waitForIndexed(first.app)

const getOn = async (app: typeof second, path: string) => (await app.inject({ method: 'GET', url: path })).json()

t.test('a verification through one instance shows on the other at once: decoded input and logs, the name, the summary', async (t) => {
  // The second instance decodes, names and caches first: nothing is verified yet.
  t.equal((await getOn(second, `/api/v2/transactions/${call}`)).decoded_input, null)
  t.equal((await getOn(second, `/api/v2/transactions/${call}/logs`)).items[0].decoded, null)
  const before = await getOn(second, `/api/v2/transactions/${call}/interpretation`)
  t.same(before.transaction.to, { hash: getAddress(contract.address), name: null, is_contract: true, is_verified: false })
  t.match(before.summaries_text, [/^Called 0x[0-9a-f]{8} on /])

  const verified = await first.app.inject({ method: 'POST', url: `/api/v2/smart-contracts/${contract.address}/verification/via/standard-input`, payload: { compiler_version: BUNDLED_VERSION, contract_name: 'Showcase', input } })
  t.equal(verified.statusCode, 200)

  // Well within the TTL that would otherwise bound how long the second instance keeps its answers.
  const deadlineMs = ABI_SOURCE_TTL_MS / 2
  const decoded = await waitFor('the second instance to decode the call', async () => (await getOn(second, `/api/v2/transactions/${call}`)).decoded_input ?? undefined, deadlineMs)
  t.match(decoded, { method_call: 'note(string topic, (address,uint256[],bytes) order, bytes32[2] keys, bool flag, int8 delta)' })
  t.match((await getOn(second, `/api/v2/transactions/${call}/logs`)).items[0].decoded, { method_call: /^Noted\(string indexed topic/ })
  const after = await getOn(second, `/api/v2/transactions/${call}/interpretation`)
  t.same(after.transaction.to, { hash: getAddress(contract.address), name: 'Showcase', is_contract: true, is_verified: true })
  // A decoded call says its arguments (the first of them here: topic).
  t.equal(after.summaries_text.length, 1)
  t.match(after.summaries_text[0], /^Called note on Showcase with topic: hello, /)
  t.same((await getOn(second, `/api/v2/transactions/${call}/summary`)).data.summaries, after.summaries, 'the summary cached by either instance')
})
