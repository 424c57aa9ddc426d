// Etherscan's contract module as hardhat-verify and forge verify-contract
// use it: verifysourcecode queues a verification and answers a guid,
// checkverifystatus reports it in Etherscan's words, getsourcecode and
// getabi read a verified contract, getcontractcreation its creator.
import type { FastifyError } from 'fastify'
import { findVerifiedContract, type VerifiedContract, type Verifier } from '../../core/verify/index.ts'
import { flattenedInput, parseStandardJson, type StandardJsonInput } from '../../core/verify/input.ts'
import { etherscanLicenseName, readLicenseType } from '../../core/verify/licenses.ts'
import { listOf, strictObject, type ActionContext, type EtherscanAction } from './action.ts'
import { nothingFound, notOk, ok, type Envelope } from './envelope.ts'
import { INVALID_ADDRESS } from './params.ts'

/** The index context plus the verifier (plugins/etherscan/index.ts passes it; absent without a node). */
type ContractContext = ActionContext & { verifier?: Verifier }

const NOT_VERIFIED = 'Contract source code not verified'
const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const MAX_CREATION_ADDRESSES = 5
/** libraryname1/libraryaddress1 ... as Etherscan numbers them. */
const MAX_LIBRARIES = 10

const param = (description: string) => ({ type: 'string', description })
const stringResult = { type: ['string', 'null'] }

const libraryParams = Object.fromEntries(Array.from({ length: MAX_LIBRARIES }, (_, i) => [
  [`libraryname${i + 1}`, param(`Library ${i + 1}'s name (single-file)`)],
  [`libraryaddress${i + 1}`, param(`Library ${i + 1}'s address (single-file)`)]
]).flat())

function libraries (params: Record<string, string>): Record<string, string> | undefined {
  const named = Array.from({ length: MAX_LIBRARIES }, (_, i) => [params[`libraryname${i + 1}`], params[`libraryaddress${i + 1}`]] as const)
    .filter((pair): pair is readonly [string, string] => pair[0] !== undefined && pair[0] !== '' && pair[1] !== undefined && pair[1] !== '')
  return named.length === 0 ? undefined : Object.fromEntries(named)
}

/** The sources a request carries, as a standard JSON input; a coded error (its message answered) when they cannot be read. */
function sourcesOf (params: Record<string, string>): StandardJsonInput {
  if (params.codeformat === 'solidity-standard-json-input') return parseStandardJson(params.sourceCode!)
  const evmVersion = params.evmversion === undefined || params.evmversion.toLowerCase() === 'default' ? undefined : params.evmversion
  const input = flattenedInput(params.sourceCode!, params.contractname, {
    optimization: params.optimizationUsed === '1' || params.optimizationUsed === 'true',
    runs: params.runs === undefined || params.runs === '' ? 200 : Number(params.runs),
    evmVersion,
    libraries: libraries(params)
  })
  // forge verify-contract --via-ir sends it beside a single file's settings.
  return params.viaIR === 'true' ? { ...input, settings: { ...input.settings, viaIR: true } } : input
}

const verifysourcecode: EtherscanAction = {
  summary: 'Queue a verification (POST; form or JSON); answers a guid for checkverifystatus',
  params: {
    contractaddress: param('The contract to verify'),
    sourceCode: param('The flattened source, or the standard JSON input'),
    codeformat: param('solidity-single-file or solidity-standard-json-input'),
    contractname: param('The contract\'s name; path:Name for a standard JSON input'),
    compilerversion: param('v0.8.28+commit.7893614a'),
    optimizationUsed: param('1 or 0 (single-file)'),
    runs: param('Optimizer runs (single-file)'),
    constructorArguements: param('ABI-encoded constructor arguments, hex without 0x (Etherscan\'s spelling)'),
    constructorArguments: param('The same, spelt right'),
    evmversion: param('EVM version (single-file), default for the compiler\'s'),
    licenseType: param('Licence number (1 = none, 3 = MIT, ...)'),
    viaIR: param('true to compile through the IR (single-file; forge verify-contract --via-ir)'),
    ...libraryParams
  },
  required: ['contractaddress', 'sourceCode', 'codeformat', 'contractname', 'compilerversion'],
  result: stringResult,
  async run (params, context) {
    const { db, verifier } = context as ContractContext
    if (verifier === undefined) return notOk('Verification is not available on this instance')
    const address = params.contractaddress!
    if (!ADDRESS.test(address)) return notOk('Invalid contract address format')
    if (!['solidity-single-file', 'solidity-standard-json-input'].includes(params.codeformat!)) return notOk(`Unsupported codeformat ${params.codeformat}`)
    let input: StandardJsonInput
    let licenseType: string | undefined
    try {
      input = sourcesOf(params)
      licenseType = readLicenseType(params.licenseType)
    } catch (error) {
      return notOk((error as FastifyError).message)
    }
    if ((await findVerifiedContract(db, address))?.matchType === 'full') return notOk('Contract source code already verified')
    const args = params.constructorArguements ?? params.constructorArguments ?? ''
    const guid = verifier.submit({
      address,
      compilerVersion: params.compilerversion!,
      input,
      contractName: params.contractname,
      constructorArgs: args,
      autodetectConstructorArgs: args === '',
      licenseType,
      method: 'etherscan'
    })
    return ok(guid)
  }
}

/**
 * A failed verification: the result is Etherscan's "Fail - Unable to verify"
 * word for word (hardhat-verify compares it so, and on it tries again with
 * the whole compiler input), and the reason, which Etherscan's NOTOK would
 * drop, is the message (forge prints it as the response).
 */
const verificationFailed = (reason: string): Envelope => ({ status: '0', message: reason, result: 'Fail - Unable to verify' })

const checkverifystatus: EtherscanAction = {
  summary: 'A queued verification\'s state: Pending in queue, Pass - Verified, Already Verified or Fail - Unable to verify',
  params: { guid: param('The guid verifysourcecode answered') },
  required: ['guid'],
  result: stringResult,
  async run ({ guid }, context) {
    const job = (context as ContractContext).verifier?.job(guid!)
    if (job === undefined) return notOk('Unknown UID')
    if (job.status === 'pending') return notOk('Pending in queue')
    if (job.status === 'verified') return ok('Pass - Verified')
    if (job.status === 'already-verified') return ok('Already Verified')
    if (job.status !== 'failed') return notOk('Unknown UID')
    return verificationFailed(job.error)
  }
}

/** Etherscan's SourceCode: the file for one source, the standard JSON input in double braces for several. */
function sourceCodeOf (contract: VerifiedContract): string {
  const paths = Object.keys(contract.sources)
  if (paths.length === 1) return contract.sources[paths[0]!]!
  const input = { language: 'Solidity', sources: Object.fromEntries(paths.map((p) => [p, { content: contract.sources[p] }])), settings: contract.compilerSettings }
  return '{' + JSON.stringify(input) + '}'
}

const UNVERIFIED_SOURCE = {
  SourceCode: '',
  ABI: NOT_VERIFIED,
  ContractName: '',
  CompilerVersion: '',
  OptimizationUsed: '',
  Runs: '',
  ConstructorArguments: '',
  EVMVersion: '',
  Library: '',
  LicenseType: '',
  Proxy: '0',
  Implementation: '',
  SwarmSource: '',
  FileName: ''
}

/** getsourcecode's fields, in Etherscan's order (FileName is Blockscout's addition). */
const SOURCE_FIELDS = Object.keys(UNVERIFIED_SOURCE)

const getsourcecode: EtherscanAction = {
  summary: 'A contract\'s verified source, ABI and settings (empty fields when not verified)',
  params: { address: param('The contract') },
  required: ['address'],
  result: listOf(strictObject(SOURCE_FIELDS)),
  async run ({ address }, { db }) {
    if (!ADDRESS.test(address!)) return notOk(INVALID_ADDRESS)
    const contract = await findVerifiedContract(db, address!)
    if (contract === null) return ok([UNVERIFIED_SOURCE])
    return ok([{
      SourceCode: sourceCodeOf(contract),
      ABI: JSON.stringify(contract.abi),
      ContractName: contract.name,
      CompilerVersion: contract.compilerVersion,
      OptimizationUsed: contract.optimization ? '1' : '0',
      Runs: String(contract.optimizationRuns ?? 200),
      ConstructorArguments: contract.constructorArguments?.slice(2) ?? '',
      // Settings without one are stored as Blockscout's "default"; Etherscan writes "Default".
      EVMVersion: contract.evmVersion === null || contract.evmVersion === 'default' ? 'Default' : contract.evmVersion,
      Library: contract.externalLibraries.map((l) => `${l.name.split(':').at(-1)}:${l.address.slice(2)}`).join(';'),
      LicenseType: etherscanLicenseName(contract.licenseType, contract.sources[contract.filePath]),
      Proxy: '0',
      Implementation: '',
      SwarmSource: '',
      FileName: contract.filePath
    }])
  }
}

const getabi: EtherscanAction = {
  summary: 'A verified contract\'s ABI as JSON text',
  params: { address: param('The contract') },
  required: ['address'],
  result: stringResult,
  async run ({ address }, { db }) {
    if (!ADDRESS.test(address!)) return notOk(INVALID_ADDRESS)
    const contract = await findVerifiedContract(db, address!)
    return contract === null ? notOk(NOT_VERIFIED) : ok(JSON.stringify(contract.abi))
  }
}

const getcontractcreation: EtherscanAction = {
  summary: 'Creator and creating transaction of up to 5 contracts',
  params: { contractaddresses: param('Comma-separated contract addresses, up to 5') },
  required: ['contractaddresses'],
  result: listOf(strictObject(['contractAddress', 'contractCreator', 'txHash', 'blockNumber', 'timestamp'], {
    contractCreator: { type: ['string', 'null'] }, blockNumber: { type: ['string', 'null'] }, timestamp: { type: ['string', 'null'] }
  })),
  async run ({ contractaddresses }, { queries }) {
    const addresses = contractaddresses!.split(',').map((a) => a.trim())
    if (addresses.length > MAX_CREATION_ADDRESSES) return notOk(`Maximum ${MAX_CREATION_ADDRESSES} contract addresses`)
    if (!addresses.every((a) => ADDRESS.test(a))) return notOk('Invalid contract address format')
    const creations = await queries.findContractCreations(addresses.map((a) => a.toLowerCase()))
    if (creations.length === 0) return nothingFound('No data found', null)
    return ok(creations.map((c) => ({
      contractAddress: c.address,
      contractCreator: c.creator?.toLowerCase() ?? null,
      txHash: c.transaction,
      blockNumber: c.block === null ? null : String(c.block),
      timestamp: c.timestamp === null ? null : String(c.timestamp)
    })))
  }
}

export const contract: Record<string, EtherscanAction> = { verifysourcecode, checkverifystatus, getsourcecode, getabi, getcontractcreation }
