// One verification: compile the sources with the version asked for, find
// the contract whose runtime code matches the address's code (immutables
// and libraries taken from the chain's copy) and whose creation code begins
// the creating transaction's input, take the constructor's arguments from
// the rest, and store it. Nothing is stored unless everything matches.
import { keccak256 } from 'ethers'
import type { Knex } from 'knex'
import type { RpcClient } from '../rpc/client.ts'
import {
  VerifyBytecodeMismatchError, VerifyCompilationFailedError, VerifyCompilerMismatchError, VerifyConstructorArgsMismatchError,
  VerifyInputInvalidError, VerifyNotContractError
} from '../errors.ts'
import { linkedLibraries, matchCreation, matchRuntime, metadataCompilerVersion, splitMetadata, type MatchType } from './bytecode.ts'
import type { CompiledContractOutput, Compiler, CompilerOutput } from './compiler.ts'
import { OUTPUT_SELECTION, type StandardJsonInput } from './input.ts'
import { findVerifiedContract, storeVerifiedContract, type AbiItem, type VerifiedContract } from './store.ts'
import type { Queries } from '../queries/index.ts'
import { announceVerification } from './notify.ts'

export type VerificationMethod = 'standard-input' | 'flattened-code' | 'multi-part' | 'etherscan'

export type VerificationRequest = {
  /** 0x and 40 hex digits. */
  address: string
  compilerVersion: string
  input: StandardJsonInput
  /** "Name", or "path:Name" to pick among several of that name; every contract is tried without it. */
  contractName?: string
  /** ABI-encoded constructor arguments (hex, 0x optional); checked against the creation input unless autodetected. */
  constructorArgs?: string
  /** Take the arguments from the creation input whatever constructorArgs says (default true). */
  autodetectConstructorArgs?: boolean
  licenseType?: string
  method: VerificationMethod
}

export type VerificationResult = { status: 'verified' | 'already-verified', contract: VerifiedContract }

export type VerifierDeps = { db: Knex, queries: Queries, rpc: RpcClient | undefined, compiler: Compiler }

const strip0x = (hex: string): string => hex.replace(/^0x/i, '').toLowerCase()

/** The address's code: the index's copy, or the node's when the index has not seen it yet. */
export async function readDeployedCode ({ queries, rpc }: Pick<VerifierDeps, 'queries' | 'rpc'>, address: string): Promise<{ code: string, creationInput: string | undefined }> {
  const found = await queries.findContract(Buffer.from(strip0x(address), 'hex'))
  if (found !== undefined) return { code: found.code.slice(2), creationInput: found.creation_code?.slice(2) }
  const code = rpc === undefined ? '0x' : await rpc.call<string>('eth_getCode', [address, 'latest'])
  return { code: strip0x(code), creationInput: undefined }
}

/** keccak of the code without its metadata tail: equal for contracts compiled from the same program. */
export const runtimeCodeHash = (code: string): Buffer => Buffer.from(keccak256('0x' + splitMetadata(strip0x(code)).code).slice(2), 'hex')

type Candidate = { path: string, name: string, output: CompiledContractOutput }

function candidates (contracts: Record<string, Record<string, CompiledContractOutput>>, wanted: string | undefined): Candidate[] {
  const all = Object.entries(contracts).flatMap(([path, byName]) => Object.entries(byName).map(([name, output]) => ({ path, name, output })))
  if (wanted === undefined || wanted === '') return all
  const split = wanted.lastIndexOf(':')
  const [path, name] = split < 0 ? [undefined, wanted] : [wanted.slice(0, split), wanted.slice(split + 1)]
  const picked = all.filter((c) => c.name === name && (path === undefined || c.path === path))
  if (picked.length === 0) throw new VerifyBytecodeMismatchError(`the sources define no contract ${wanted}`)
  return picked
}

type Matched = { candidate: Candidate, match: MatchType, constructorArgs: string | null }

function findMatch (list: Candidate[], deployed: string, creationInput: string | undefined): Matched {
  let runtimeMatched: Candidate | undefined
  for (const candidate of list) {
    const evm = candidate.output.evm
    const compiled = {
      runtime: evm.deployedBytecode.object,
      creation: evm.bytecode.object,
      immutableReferences: evm.deployedBytecode.immutableReferences,
      runtimeLinkReferences: evm.deployedBytecode.linkReferences,
      creationLinkReferences: evm.bytecode.linkReferences
    }
    if (compiled.runtime === '') continue
    const runtime = matchRuntime(compiled, deployed)
    if (runtime === undefined) continue
    runtimeMatched = candidate
    if (creationInput === undefined) return { candidate, match: runtime, constructorArgs: null }
    const creation = matchCreation(compiled, creationInput)
    if (creation === undefined) continue
    return { candidate, match: runtime === 'full' && creation.match === 'full' ? 'full' : 'partial', constructorArgs: creation.constructorArgs }
  }
  if (runtimeMatched !== undefined) throw new VerifyBytecodeMismatchError(`${runtimeMatched.name}'s runtime code matches but its creation code does not begin the creation transaction's input`)
  throw new VerifyBytecodeMismatchError(list.length === 1 ? `${list[0]!.path}:${list[0]!.name} compiles to other code` : `none of ${list.length} contracts compiled matches`)
}

/**
 * The libraries the contract calls: those solc left unlinked, at the
 * addresses the deployed code holds, and those the settings linked (named
 * under the file that defines them).
 */
function externalLibraries (candidate: Candidate, code: string, settings: Record<string, unknown>, contracts: Record<string, Record<string, unknown>>) {
  const fromCode = linkedLibraries(candidate.output.evm.deployedBytecode.linkReferences, code)
  const linked = (settings.libraries ?? {}) as Record<string, Record<string, string>>
  const fromSettings = Object.entries(linked).flatMap(([file, byName]) => Object.entries(byName)
    .filter(([name]) => contracts[file]?.[name] !== undefined)
    .map(([name, libraryAddress]) => [`${file}:${name}`, libraryAddress.toLowerCase()] as const))
  return Object.entries({ ...Object.fromEntries(fromSettings), ...fromCode }).map(([name, libraryAddress]) => ({ name, address: libraryAddress }))
}

async function compileWith (compiler: Compiler, version: string, input: StandardJsonInput, settings: Record<string, unknown>): Promise<CompilerOutput> {
  const output = await compiler.compile(version, { ...input, settings: { ...settings, outputSelection: OUTPUT_SELECTION } })
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new VerifyCompilationFailedError(errors.slice(0, 3).map((e) => e.formattedMessage ?? e.message).join('\n'))
  return output
}

/** Whether every library the settings name for the candidate's link references is the one the deployed code holds there. */
function librariesAgree (candidate: Candidate, code: string, named: Record<string, Record<string, string>>): boolean {
  return Object.entries(linkedLibraries(candidate.output.evm.deployedBytecode.linkReferences, code)).every(([key, found]) => {
    const split = key.lastIndexOf(':')
    const given = named[key.slice(0, split)]?.[key.slice(split + 1)]
    return given === undefined || given.toLowerCase() === found
  })
}

type Compiled = { settings: Record<string, unknown>, output: CompilerOutput, matched: Matched }

/**
 * Compiles with the settings given and finds the match. Tools that link
 * after compiling (Hardhat, forge) deploy code whose metadata holds no
 * libraries, yet hardhat-verify and forge verify-contract name them in the
 * settings, which solc writes into the metadata: short of a full match, such
 * a request is compiled again without them and the link references filled
 * from the deployed code, provided it holds the libraries named.
 */
async function compileAndMatch (deps: VerifierDeps, version: string, request: VerificationRequest, code: string, creationInput: string | undefined): Promise<Compiled> {
  const given = request.input.settings
  const output = await compileWith(deps.compiler, version, request.input, given)
  let first: Compiled | undefined
  let failure: unknown
  try {
    first = { settings: given, output, matched: findMatch(candidates(output.contracts ?? {}, request.contractName), code, creationInput) }
    if (first.matched.match === 'full') return first
  } catch (error) {
    failure = error
  }
  const named = (given.libraries ?? {}) as Record<string, Record<string, string>>
  if (Object.keys(named).length > 0) {
    const { libraries: _, ...settings } = given
    const unlinked = await compileWith(deps.compiler, version, request.input, settings)
    const second = (() => {
      try { return findMatch(candidates(unlinked.contracts ?? {}, request.contractName), code, creationInput) } catch { return undefined }
    })()
    if (second?.match === 'full' && librariesAgree(second.candidate, code, named)) return { settings, output: unlinked, matched: second }
  }
  if (first !== undefined) return first
  throw failure
}

/** Verifies one contract; throws a coded GW_ERR_VERIFY_* error and stores nothing when it cannot. */
export async function verifyContract (deps: VerifierDeps, request: VerificationRequest): Promise<VerificationResult> {
  const address = request.address.toLowerCase()
  if (!/^0x[0-9a-f]{40}$/.test(address)) throw new VerifyInputInvalidError(`${request.address} is not an address`)
  const { code, creationInput } = await readDeployedCode(deps, address)
  if (code === '') throw new VerifyNotContractError(address)
  const existing = await findVerifiedContract(deps.db, address)
  if (existing?.matchType === 'full') return { status: 'already-verified', contract: existing }

  const version = await deps.compiler.resolveVersion(request.compilerVersion)
  const deployedWith = metadataCompilerVersion(splitMetadata(code).metadata)
  if (deployedWith !== undefined && !version.startsWith(`v${deployedWith}+`)) throw new VerifyCompilerMismatchError(deployedWith, version)

  const { settings, output, matched: { candidate, match, constructorArgs } } = await compileAndMatch(deps, version, request, code, creationInput)
  const given = request.constructorArgs === undefined ? '' : strip0x(request.constructorArgs)
  if (given !== '' && !/^[0-9a-f]*$/.test(given)) throw new VerifyInputInvalidError('constructor arguments are not hex')
  if (constructorArgs !== null && request.autodetectConstructorArgs === false && given !== constructorArgs) {
    throw new VerifyConstructorArgsMismatchError('0x' + given, '0x' + constructorArgs)
  }
  const found = constructorArgs ?? given
  const args = found === '' ? null : found
  const optimizer = (settings.optimizer ?? {}) as { enabled?: boolean, runs?: number }
  const contract: VerifiedContract = {
    address,
    name: candidate.name,
    language: 'solidity',
    compilerVersion: version,
    compilerSettings: settings,
    sources: Object.fromEntries(Object.entries(request.input.sources).map(([path, s]) => [path, s.content])),
    filePath: candidate.path,
    abi: candidate.output.abi as AbiItem[],
    constructorArguments: args === null ? null : '0x' + args,
    matchType: match,
    evmVersion: typeof settings.evmVersion === 'string' ? settings.evmVersion : 'default',
    optimization: optimizer.enabled === true,
    optimizationRuns: optimizer.enabled === true ? (optimizer.runs ?? 200) : null,
    licenseType: request.licenseType ?? null,
    externalLibraries: externalLibraries(candidate, code, settings, output.contracts ?? {}),
    verificationMethod: request.method,
    verifiedAtMs: Date.now()
  }
  // Every instance hears of it at the commit (notify.ts): their decodings and names change.
  const stored = await deps.db.transaction(async (trx) => {
    const written = await storeVerifiedContract(trx, { ...contract, runtimeCodeHash: runtimeCodeHash(code) })
    if (written) await announceVerification(trx, address)
    return written
  })
  // A full match stored meanwhile by another request wins.
  if (!stored) return { status: 'already-verified', contract: (await findVerifiedContract(deps.db, address))! }
  return { status: 'verified', contract: (await findVerifiedContract(deps.db, address))! }
}
