// Blockscout's licence ids, numbered from 1 in this order: its forms and
// Etherscan's licenseType (a number) both name them. Etherscan's getsourcecode
// writes a licence by its short name (its contract-license-types page lists
// the same fourteen in the same order), and a source names its own in its
// SPDX-License-Identifier comment.
import { VerifyInputInvalidError } from '../errors.ts'

export const LICENSE_TYPES = ['none', 'unlicense', 'mit', 'gnu_gpl_v2', 'gnu_gpl_v3', 'gnu_lgpl_v2_1', 'gnu_lgpl_v3',
  'bsd_2_clause', 'bsd_3_clause', 'mpl_2_0', 'osl_3_0', 'apache_2_0', 'gnu_agpl_v3', 'bsl_1_1'] as const

export type LicenseType = typeof LICENSE_TYPES[number]

/** Etherscan's short names of LICENSE_TYPES, in the same order. */
const ETHERSCAN_NAMES: Record<LicenseType, string> = {
  none: 'None',
  unlicense: 'Unlicense',
  mit: 'MIT',
  gnu_gpl_v2: 'GNU GPLv2',
  gnu_gpl_v3: 'GNU GPLv3',
  gnu_lgpl_v2_1: 'GNU LGPLv2.1',
  gnu_lgpl_v3: 'GNU LGPLv3',
  bsd_2_clause: 'BSD-2-Clause',
  bsd_3_clause: 'BSD-3-Clause',
  mpl_2_0: 'MPL-2.0',
  osl_3_0: 'OSL-3.0',
  apache_2_0: 'Apache-2.0',
  gnu_agpl_v3: 'GNU AGPLv3',
  bsl_1_1: 'BSL 1.1'
}

/**
 * SPDX identifiers (lower-cased: SPDX matches them regardless of case) of
 * each licence. UNLICENSED is Solidity's word for no open-source licence at
 * all, Etherscan's None; Unlicense is the public-domain licence.
 */
const BY_SPDX: Record<string, LicenseType> = {
  unlicensed: 'none',
  unlicense: 'unlicense',
  mit: 'mit',
  ...Object.fromEntries(['gpl-2.0', 'gpl-2.0-only', 'gpl-2.0-or-later', 'gpl-2.0+'].map((id) => [id, 'gnu_gpl_v2'])),
  ...Object.fromEntries(['gpl-3.0', 'gpl-3.0-only', 'gpl-3.0-or-later', 'gpl-3.0+'].map((id) => [id, 'gnu_gpl_v3'])),
  ...Object.fromEntries(['lgpl-2.1', 'lgpl-2.1-only', 'lgpl-2.1-or-later', 'lgpl-2.1+'].map((id) => [id, 'gnu_lgpl_v2_1'])),
  ...Object.fromEntries(['lgpl-3.0', 'lgpl-3.0-only', 'lgpl-3.0-or-later', 'lgpl-3.0+'].map((id) => [id, 'gnu_lgpl_v3'])),
  'bsd-2-clause': 'bsd_2_clause',
  'bsd-3-clause': 'bsd_3_clause',
  'mpl-2.0': 'mpl_2_0',
  'osl-3.0': 'osl_3_0',
  'apache-2.0': 'apache_2_0',
  ...Object.fromEntries(['agpl-3.0', 'agpl-3.0-only', 'agpl-3.0-or-later', 'agpl-3.0+'].map((id) => [id, 'gnu_agpl_v3'])),
  'busl-1.1': 'bsl_1_1'
}

const SPDX_LINE = /SPDX-License-Identifier:\s*([^\s*]+(?:\s+(?:OR|AND|WITH)\s+[^\s*]+)*)/

/** A licence by name or number (1 = none); undefined for none given. */
export function readLicenseType (value: string | number | undefined): string | undefined {
  if (value === undefined || value === '') return undefined
  const text = String(value).trim().toLowerCase()
  const byNumber = /^[0-9]+$/.test(text) ? LICENSE_TYPES[Number(text) - 1] : undefined
  const found = byNumber ?? LICENSE_TYPES.find((name) => name === text)
  if (found === undefined) throw new VerifyInputInvalidError(`unknown license type ${JSON.stringify(value)}`)
  return found
}

/** The first SPDX-License-Identifier of a source (an expression such as "MIT OR Apache-2.0" whole); undefined with none. */
export function readSpdxIdentifier (source: string): string | undefined {
  return SPDX_LINE.exec(source)?.[1]
}

/**
 * getsourcecode's LicenseType: the licence the verification named, else the
 * one the contract's source declares (its SPDX line) in Etherscan's words,
 * "None" without either. An SPDX expression Etherscan has no name for (GPL
 * with an exception, a dual licence) is written as the source writes it.
 */
export function etherscanLicenseName (licenseType: string | null, source: string | undefined): string {
  if (licenseType !== null && Object.hasOwn(ETHERSCAN_NAMES, licenseType)) return ETHERSCAN_NAMES[licenseType as LicenseType]
  const spdx = source === undefined ? undefined : readSpdxIdentifier(source)
  if (spdx === undefined) return ETHERSCAN_NAMES.none
  const known = BY_SPDX[spdx.toLowerCase()]
  return known === undefined ? spdx : ETHERSCAN_NAMES[known]
}
