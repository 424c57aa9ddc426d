// The committed selector table is what scripts/gen-signatures.ts writes.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { id } from 'ethers'
import { SIGNATURES_FILE, generateSignatures, signaturesJson } from '../../../scripts/gen-signatures.ts'

t.test('signatures.json equals a fresh run of scripts/gen-signatures.ts', async (t) => {
  t.equal(readFileSync(SIGNATURES_FILE, 'utf8'), signaturesJson(), 'run: node --import tsx scripts/gen-signatures.ts')
})

t.test('the table\'s selectors and topics are the keccak-256 of the canonical signatures', async (t) => {
  const table = generateSignatures()
  const transfer = table.functions.find((f) => f.fragment.startsWith('function transfer('))!
  t.equal(transfer.selector, id('transfer(address,uint256)').slice(0, 10))
  t.equal(transfer.selector, '0xa9059cbb')
  const batch = table.events.find((e) => e.fragment.startsWith('event TransferBatch('))!
  t.equal(batch.topic, id('TransferBatch(address,address,address,uint256[],uint256[])'))
  const swap = table.functions.find((f) => f.fragment.startsWith('function exactInputSingle('))!
  t.equal(swap.selector, id('exactInputSingle((address,address,uint24,address,uint256,uint256,uint256,uint160))').slice(0, 10))
  t.ok(table.functions.length >= 40 && table.events.length >= 20)
})
