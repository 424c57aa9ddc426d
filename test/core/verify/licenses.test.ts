// Licences: the SPDX line a source declares, and Etherscan's names.
import t from 'tap'
import { etherscanLicenseName, readSpdxIdentifier } from '../../../core/verify/licenses.ts'

t.test('readSpdxIdentifier() reads the first SPDX line, an expression whole', async (t) => {
  t.equal(readSpdxIdentifier('// SPDX-License-Identifier: GPL-2.0-or-later\n// SPDX-License-Identifier: MIT'), 'GPL-2.0-or-later')
  t.equal(readSpdxIdentifier('/* SPDX-License-Identifier: MIT */'), 'MIT')
  t.equal(readSpdxIdentifier('// SPDX-License-Identifier: GPL-2.0-only WITH Classpath-exception-2.0\npragma'), 'GPL-2.0-only WITH Classpath-exception-2.0')
  t.equal(readSpdxIdentifier('contract C {}'), undefined)
  t.equal(etherscanLicenseName(null, '// SPDX-License-Identifier: mit'), 'MIT', 'SPDX ids match regardless of case')
  t.equal(etherscanLicenseName(null, undefined), 'None')
})
