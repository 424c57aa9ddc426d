// getsourcecode's LicenseType and EVMVersion in Etherscan's words, for
// verified contracts stored as the verifier stores them: the licence the
// verification named, else the contract's own SPDX line, else None; the
// compiler's default EVM version as Default.
import t from 'tap'
import { build } from '../../helper.ts'
import { storeVerifiedContract } from '../../../core/verify/store.ts'
import { numberedAddress, verifiedRow } from '../../support/verified-rows.ts'

const { app } = await build(t)
const db = app.db.knex
const sourceCode = async (i: number) => (await app.inject({ method: 'GET', url: `/api?module=contract&action=getsourcecode&address=${numberedAddress(i)}` })).json().result[0]
const withSpdx = (line: string) => `${line}\npragma solidity ^0.8.20;\ncontract C {}\n`

t.test('getsourcecode: LicenseType from the verification, else the contract file\'s SPDX line, in Etherscan\'s names; None without either', async (t) => {
  const cases: Array<[string, Parameters<typeof verifiedRow>[1]]> = [
    ['MIT', { sources: { 'C.sol': withSpdx('// SPDX-License-Identifier: MIT') }, filePath: 'C.sol' }],
    ['GNU GPLv3', { sources: { 'C.sol': withSpdx('// SPDX-License-Identifier: GPL-3.0-or-later') }, filePath: 'C.sol' }],
    ['BSL 1.1', { sources: { 'C.sol': withSpdx('/* SPDX-License-Identifier: BUSL-1.1 */') }, filePath: 'C.sol' }],
    ['None', { sources: { 'C.sol': withSpdx('// SPDX-License-Identifier: UNLICENSED') }, filePath: 'C.sol' }],
    ['Unlicense', { sources: { 'C.sol': withSpdx('// SPDX-License-Identifier: Unlicense') }, filePath: 'C.sol' }],
    ['None', { sources: { 'C.sol': 'contract C {}' }, filePath: 'C.sol' }],
    // The contract's own file, not an import's.
    ['GNU LGPLv3', { sources: { 'lib/L.sol': withSpdx('// SPDX-License-Identifier: MIT'), 'C.sol': withSpdx('// SPDX-License-Identifier: LGPL-3.0-only') }, filePath: 'C.sol' }],
    ['Apache-2.0', { sources: { 'C.sol': withSpdx('// SPDX-License-Identifier: MIT') }, filePath: 'C.sol', licenseType: 'apache_2_0' }],
    ['MIT OR Apache-2.0', { sources: { 'C.sol': withSpdx('// SPDX-License-Identifier: MIT OR Apache-2.0') }, filePath: 'C.sol' }]
  ]
  for (const [i, [name, overrides]] of cases.entries()) {
    await storeVerifiedContract(db, verifiedRow(100 + i, overrides))
    t.equal((await sourceCode(100 + i)).LicenseType, name, `${name}: ${JSON.stringify(overrides)}`)
  }
})

t.test('getsourcecode: EVMVersion Default when the settings named none, else the version', async (t) => {
  await storeVerifiedContract(db, verifiedRow(200, { evmVersion: 'default' }))
  await storeVerifiedContract(db, verifiedRow(201, { evmVersion: null }))
  await storeVerifiedContract(db, verifiedRow(202, { evmVersion: 'paris' }))
  t.equal((await sourceCode(200)).EVMVersion, 'Default')
  t.equal((await sourceCode(201)).EVMVersion, 'Default')
  t.equal((await sourceCode(202)).EVMVersion, 'paris')
})
