// Blockscout's licence ids, numbered from 1 in this order: its forms and
// Etherscan's licenseType (a number) both name them.
import { VerifyInputInvalidError } from '../errors.ts'

export const LICENSE_TYPES = ['none', 'unlicense', 'mit', 'gnu_gpl_v2', 'gnu_gpl_v3', 'gnu_lgpl_v2_1', 'gnu_lgpl_v3',
  'bsd_2_clause', 'bsd_3_clause', 'mpl_2_0', 'osl_3_0', 'apache_2_0', 'gnu_agpl_v3', 'bsl_1_1'] as const

/** A licence by name or number (1 = none); undefined for none given. */
export function readLicenseType (value: string | number | undefined): string | undefined {
  if (value === undefined || value === '') return undefined
  const text = String(value).trim().toLowerCase()
  const byNumber = /^[0-9]+$/.test(text) ? LICENSE_TYPES[Number(text) - 1] : undefined
  const found = byNumber ?? LICENSE_TYPES.find((name) => name === text)
  if (found === undefined) throw new VerifyInputInvalidError(`unknown license type ${JSON.stringify(value)}`)
  return found
}
