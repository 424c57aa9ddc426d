// Rows of the verified contracts' table for tests that store them directly
// (no compiler): contract i at address i, with code hash i.
import type { VerifiedContractRow } from '../../core/verify/store.ts'

export const numberedAddress = (i: number): string => '0x' + i.toString(16).padStart(40, '0')

export const verifiedRow = (i: number, overrides: Partial<VerifiedContractRow> = {}): VerifiedContractRow => ({
  address: numberedAddress(i),
  name: `Contract${i}`,
  language: 'solidity',
  compilerVersion: 'v0.8.28+commit.7893614a',
  compilerSettings: { optimizer: { enabled: false } },
  sources: { [`C${i}.sol`]: `contract Contract${i} {}` },
  filePath: `C${i}.sol`,
  abi: [],
  constructorArguments: null,
  matchType: 'full',
  evmVersion: 'paris',
  optimization: false,
  optimizationRuns: null,
  licenseType: null,
  externalLibraries: [],
  verificationMethod: 'standard-input',
  runtimeCodeHash: Buffer.alloc(32, i),
  ...overrides
})
