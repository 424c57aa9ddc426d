// `npm run ops -- tag`: its command line (the naming is tested on a chain in test/plugins/rest/interpretation.test.ts).
import t from 'tap'
import pino from 'pino'
import { Wallet } from 'ethers'
import { openDatabase } from '../../../core/db/index.ts'
import { parseOpsArgs } from '../../../scripts/ops/args.ts'
import { runTag } from '../../../scripts/ops/tag.ts'
import { createTestDatabase } from '../../support/database.ts'

const address = Wallet.createRandom().address

t.test('parseOpsArgs() reads tag <address> [name] and refuses anything else', async (t) => {
  t.same(parseOpsArgs(['tag', address, ' Faucet ']), { name: 'tag', address, tag: 'Faucet' })
  t.same(parseOpsArgs(['tag', address]), { name: 'tag', address, tag: undefined })
  for (const argv of [['tag'], ['tag', '0x12', 'x'], ['tag', address, ''], ['tag', address, 'x'.repeat(65)], ['tag', address, 'a', 'b'], ['tag', address, 'a', '--json']]) {
    t.throws(() => parseOpsArgs(argv), { code: 'GW_ERR_OPS_USAGE' }, argv.join(' '))
  }
})

t.test('runTag() sets, replaces and removes a tag', async (t) => {
  const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '.', log: pino({ level: 'warn' }) })
  t.teardown(async () => await database.close())
  const db = database.knex
  const tags = async () => (await db('public_tags').select('name')).map((r) => r.name)
  const lines: string[] = []
  t.equal(await runTag(db, { address, tag: 'Faucet' }, (l) => lines.push(l)), 0)
  t.same(await tags(), ['Faucet'])
  await runTag(db, { address: address.toLowerCase(), tag: 'Bank' }, (l) => lines.push(l))
  t.same(await tags(), ['Bank'], 'one tag an address, whatever its case')
  await runTag(db, { address, tag: undefined }, (l) => lines.push(l))
  t.same(await tags(), [])
  t.same(lines, [`${address} tagged "Faucet"; 0 cached summaries naming it will be written again`, `${address} tagged "Bank"; 0 cached summaries naming it will be written again`,
    `${address} untagged; 0 cached summaries naming it will be written again`])
})
