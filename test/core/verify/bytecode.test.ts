// The bytecode comparisons of verification on code solc really wrote: the
// metadata tail, immutables, link references and constructor arguments.
import t from 'tap'
import { AbiCoder } from 'ethers'
import { createRequire } from 'node:module'
import { copyRanges, linkedLibraries, matchCreation, matchRuntime, metadataCompilerVersion, splitMetadata, type CompiledCode } from '../../../core/verify/bytecode.ts'
import { readFixture } from '../../support/verify.ts'

const solc = createRequire(import.meta.url)('solc') as { compile (input: string): string }

function compile (files: Record<string, string>, path: string, name: string): CompiledCode {
  const output = JSON.parse(solc.compile(JSON.stringify({
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(files).map(([p, content]) => [p, { content }])),
    settings: {
      evmVersion: 'paris',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['evm.bytecode.object', 'evm.bytecode.linkReferences', 'evm.deployedBytecode.object', 'evm.deployedBytecode.linkReferences', 'evm.deployedBytecode.immutableReferences'] } }
    }
  })))
  const evm = output.contracts[path][name].evm
  return {
    runtime: evm.deployedBytecode.object,
    creation: evm.bytecode.object,
    immutableReferences: evm.deployedBytecode.immutableReferences,
    runtimeLinkReferences: evm.deployedBytecode.linkReferences,
    creationLinkReferences: evm.bytecode.linkReferences
  }
}

const token = await readFixture('VerifiedToken.sol')
const compiled = compile({ 'VerifiedToken.sol': token }, 'VerifiedToken.sol', 'VerifiedToken')
// The same program with another comment: only the metadata hash differs.
const commented = compile({ 'VerifiedToken.sol': token + '\n// another comment\n' }, 'VerifiedToken.sol', 'VerifiedToken')

/** What the constructor would leave on chain: the immutables written in. */
function deployedWith (code: CompiledCode, fill: string): string {
  const ranges = Object.values(code.immutableReferences ?? {}).flat()
  return copyRanges(code.runtime, fill.repeat(code.runtime.length / fill.length + 1), ranges)
}

t.test('splitMetadata() cuts the CBOR tail its last two bytes measure, and reads the compiler version from it', async (t) => {
  const { code, metadata } = splitMetadata(compiled.runtime)
  t.equal(code + metadata, compiled.runtime)
  t.equal(parseInt(metadata.slice(-4), 16) * 2 + 4, metadata.length)
  t.match(metadata, /^a2/, 'a map of two entries (ipfs, solc)')
  t.equal(metadataCompilerVersion(metadata), '0.8.28')
  t.same(splitMetadata('6080604052'), { code: '6080604052', metadata: '' }, 'no tail: all code')
  t.same(splitMetadata('00ff'), { code: '00ff', metadata: '' }, 'a "length" longer than the code is not metadata')
  t.equal(metadataCompilerVersion('a1646970667358220000'), undefined, 'garbage reads as no version')
})

t.test('matchRuntime() takes immutables from the chain\'s code: full match, partial when only metadata differs, none otherwise', async (t) => {
  t.ok(Object.keys(compiled.immutableReferences ?? {}).length >= 2, 'the fixture has immutables')
  const onChain = deployedWith(compiled, 'ab')
  t.not(onChain, compiled.runtime)
  t.equal(matchRuntime(compiled, onChain), 'full')
  t.equal(matchRuntime(commented, onChain), 'partial')
  t.equal(matchRuntime({ ...compiled, immutableReferences: {} }, onChain), undefined, 'without filling immutables nothing matches')
  const changed = onChain.slice(0, 20) + (onChain[20] === '0' ? '1' : '0') + onChain.slice(21)
  t.equal(matchRuntime(compiled, changed), undefined, 'one nibble of code changed')
})

t.test('matchCreation() splits the constructor arguments off the creation input', async (t) => {
  const args = AbiCoder.defaultAbiCoder().encode(['string', 'string', 'uint256', 'uint256'], ['Name', 'SYM', 5n, 10n]).slice(2)
  t.same(matchCreation(compiled, compiled.creation + args), { match: 'full', constructorArgs: args })
  t.same(matchCreation(commented, compiled.creation + args), { match: 'partial', constructorArgs: args })
  t.same(matchCreation(compiled, compiled.creation), { match: 'full', constructorArgs: '' })
  t.equal(matchCreation(compiled, compiled.creation.slice(0, 100)), undefined, 'shorter than the code')
  t.equal(matchCreation(compiled, '00' + compiled.creation + args), undefined)
})

t.test('link references are filled from the chain\'s code, and name the libraries linked', async (t) => {
  const linked = compile({ 'Linked.sol': await readFixture('Linked.sol') }, 'Linked.sol', 'ScaledCounter')
  const [range] = Object.values(linked.runtimeLinkReferences!['Linked.sol']!).flat()
  t.ok(range, 'the fixture links a library')
  t.match(linked.runtime.slice(range!.start * 2, range!.start * 2 + 6), /^__\$/, 'a placeholder where the address goes')
  const library = '1234567890abcdef1234567890abcdef12345678'
  const placed = linked.runtime.slice(0, range!.start * 2) + library + linked.runtime.slice(range!.start * 2 + 40)
  t.equal(matchRuntime(linked, placed), 'full')
  t.same(linkedLibraries(linked.runtimeLinkReferences, placed), { 'Linked.sol:Scale': '0x' + library })
})

t.test('a library\'s call protection (PUSH20 of its own address, zero as compiled) is taken from the chain\'s code', async (t) => {
  const library = compile({ 'Linked.sol': await readFixture('Linked.sol') }, 'Linked.sol', 'Scale')
  t.match(library.runtime, /^73(00){20}3014/, 'solc leaves the address zero')
  const own = 'abcdefabcdefabcdefabcdefabcdefabcdefabcd'
  const deployed = '73' + own + library.runtime.slice(42)
  t.equal(matchRuntime(library, deployed), 'full')
  const commentedLibrary = compile({ 'Linked.sol': await readFixture('Linked.sol') + '\n// another comment\n' }, 'Linked.sol', 'Scale')
  t.equal(matchRuntime(commentedLibrary, deployed), 'partial', 'partial when only the metadata differs')
  t.equal(matchRuntime(library, '74' + own + library.runtime.slice(42)), undefined, 'only the address is taken, not the opcode before it')
  t.equal(matchRuntime(compiled, '73' + own + compiled.runtime.slice(42)), undefined, 'a contract\'s code is compared whole')
})
