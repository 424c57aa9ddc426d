// The contracts the generated chain exercises: the test fixtures, read at run time.
export { compileContract, type CompiledContract } from '../../lib/compile-contract.ts'

const FIXTURES = new URL('../../../test/fixtures/contracts/', import.meta.url)
export const TEST_TOKEN_SOURCE = new URL('TestToken.sol', FIXTURES)
export const CALLER_SOURCE = new URL('Caller.sol', FIXTURES)
