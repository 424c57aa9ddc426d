// Test contracts, compiled for paris (see scripts/lib/compile-contract.ts).
export { compileContract, type CompiledContract } from '../../scripts/lib/compile-contract.ts'

export const TEST_TOKEN_SOURCE = new URL('../fixtures/contracts/TestToken.sol', import.meta.url)
