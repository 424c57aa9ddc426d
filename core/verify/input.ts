// What a verification compiles: solc's standard JSON input, read from the
// file a client sent or built from a flattened source or several files.
import { VerifyInputInvalidError, VerifySourcesTooLargeError } from '../errors.ts'

export type StandardJsonInput = {
  language: 'Solidity'
  sources: Record<string, { content: string }>
  settings: Record<string, unknown>
}

/** What verification reads from solc's output; asked for instead of the client's selection (less to compile and send). */
export const OUTPUT_SELECTION = {
  '*': {
    '*': ['abi', 'evm.bytecode.object', 'evm.bytecode.linkReferences', 'evm.deployedBytecode.object',
      'evm.deployedBytecode.linkReferences', 'evm.deployedBytecode.immutableReferences']
  }
}

/** evm versions solc 0.8.28 knows, newest first, and "default" (the compiler's own). */
export const EVM_VERSIONS = ['default', 'cancun', 'shanghai', 'paris', 'london', 'berlin', 'istanbul', 'petersburg', 'constantinople', 'byzantium', 'spuriousDragon', 'tangerineWhistle', 'homestead']

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)

/** A standard JSON input from its text; throws GW_ERR_VERIFY_INPUT_INVALID naming what is wrong. */
export function parseStandardJson (text: string): StandardJsonInput {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new VerifyInputInvalidError(`the standard JSON input is not JSON (${(error as Error).message})`)
  }
  return checkStandardJson(parsed)
}

/** Library name -> address from a form's JSON text or a JSON body's object; undefined for none. */
export function readLibraries (value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null || value === '') return undefined
  let parsed: unknown = value
  if (typeof value === 'string') {
    try { parsed = JSON.parse(value) } catch { parsed = undefined }
  }
  if (!isObject(parsed)) throw new VerifyInputInvalidError('libraries is not a JSON object of name -> address')
  for (const [name, address] of Object.entries(parsed)) {
    if (typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address)) throw new VerifyInputInvalidError(`library ${name}'s address is not an address`)
  }
  return parsed as Record<string, string>
}

export function checkStandardJson (parsed: unknown): StandardJsonInput {
  if (!isObject(parsed)) throw new VerifyInputInvalidError('the standard JSON input is not an object')
  if (parsed.language !== undefined && parsed.language !== 'Solidity') throw new VerifyInputInvalidError(`language ${JSON.stringify(parsed.language)} is not verified here (Solidity only)`)
  if (!isObject(parsed.sources) || Object.keys(parsed.sources).length === 0) throw new VerifyInputInvalidError('the standard JSON input has no sources')
  for (const [path, source] of Object.entries(parsed.sources)) {
    // Sources by URL would need fetching, which this gateway does not do.
    if (!isObject(source) || typeof source.content !== 'string') throw new VerifyInputInvalidError(`source ${path} has no content`)
  }
  if (parsed.settings !== undefined && !isObject(parsed.settings)) throw new VerifyInputInvalidError('settings is not an object')
  const sources = Object.fromEntries(Object.entries(parsed.sources as Record<string, { content: string }>).map(([path, s]) => [path, { content: s.content }]))
  return { language: 'Solidity', sources, settings: (parsed.settings ?? {}) as Record<string, unknown> }
}

export type SourceSettings = {
  optimization: boolean
  runs: number
  evmVersion: string | undefined
  /** Library name -> address, linked by solc (the code's own addresses are used for any not named). */
  libraries?: Record<string, string>
}

/** Settings of a flattened or multi-part verification, as Blockscout's form gives them. */
export function settingsFrom ({ optimization, runs, evmVersion, libraries }: SourceSettings, files: string[]): Record<string, unknown> {
  if (evmVersion !== undefined && !EVM_VERSIONS.includes(evmVersion)) throw new VerifyInputInvalidError(`unknown evm version ${JSON.stringify(evmVersion)}`)
  return {
    optimizer: { enabled: optimization, runs },
    ...(evmVersion === undefined || evmVersion === 'default' ? {} : { evmVersion }),
    // The form names libraries without their file: solc links by file, and ignores a file that defines no such library.
    ...(libraries === undefined || Object.keys(libraries).length === 0 ? {} : { libraries: Object.fromEntries(files.map((file) => [file, libraries])) })
  }
}

/** A standard JSON input of several files: path -> content. */
export function multiPartInput (files: Record<string, string>, settings: SourceSettings): StandardJsonInput {
  const paths = Object.keys(files)
  if (paths.length === 0) throw new VerifyInputInvalidError('no source files')
  return { language: 'Solidity', sources: Object.fromEntries(Object.entries(files).map(([path, content]) => [path, { content }])), settings: settingsFrom(settings, paths) }
}

/** A standard JSON input of one flattened file, named for the contract (as Blockscout does). */
export function flattenedInput (sourceCode: string, contractName: string | undefined, settings: SourceSettings): StandardJsonInput {
  if (sourceCode.trim() === '') throw new VerifyInputInvalidError('source_code is empty')
  return multiPartInput({ [`${contractName ?? 'contract'}.sol`]: sourceCode }, settings)
}

/**
 * Throws GW_ERR_VERIFY_SOURCES_TOO_LARGE when the sources' UTF-8 bytes
 * together pass `maxBytes`: 50 files of 10 MB once took the process from
 * 402 MB to 3.4 GB (the text, the input built of it, solc's copy).
 */
export function checkSourcesSize (input: StandardJsonInput, maxBytes: number): void {
  let bytes = 0
  for (const { content } of Object.values(input.sources)) bytes += Buffer.byteLength(content, 'utf8')
  if (bytes > maxBytes) throw new VerifySourcesTooLargeError(String(bytes), String(maxBytes))
}
