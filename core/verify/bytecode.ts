// Comparing compiled bytecode with what is on chain, as explorers do. Pure:
// hex strings without 0x in, verdicts out.
//
// solc appends a CBOR map (the metadata's hash, the compiler version) to the
// runtime code, followed by its length in two bytes. The metadata hashes the
// sources byte for byte, comments and whitespace included, so code compiled
// from the same program with other comments differs only there: a partial
// match. Immutables are written into the runtime code by the constructor, and
// library addresses by the linker: both are taken from the chain's copy at
// the positions the compiler reports before comparing. A library's runtime
// code begins with PUSH20 of its own address (its call protection: called
// other than by DELEGATECALL, ADDRESS equals it), zero in the compiler's
// output and written by its constructor: those 20 bytes are the chain's too.

export type CodeRange = { start: number, length: number }

/** solc's linkReferences: file -> library -> ranges (bytes). */
export type LinkReferences = Record<string, Record<string, CodeRange[]>>

/** solc's immutableReferences: AST id -> ranges (bytes). */
export type ImmutableReferences = Record<string, CodeRange[]>

export type MatchType = 'full' | 'partial'

/** Largest CBOR tail taken as metadata: solc's is about 50 bytes; a bigger "length" is not metadata. */
const MAX_METADATA_BYTES = 256

/** Splits code (hex) into the code before the metadata and the metadata with its 2-byte length; metadata is '' when there is none. */
export function splitMetadata (code: string): { code: string, metadata: string } {
  if (code.length < 4) return { code, metadata: '' }
  const length = parseInt(code.slice(-4), 16)
  const total = (length + 2) * 2
  // A CBOR map of solc's starts with a1..a5 (a map of 1 to 5 entries).
  if (length === 0 || length > MAX_METADATA_BYTES || total > code.length) return { code, metadata: '' }
  const head = parseInt(code.slice(code.length - total, code.length - total + 2), 16)
  if (head < 0xa1 || head > 0xa5) return { code, metadata: '' }
  return { code: code.slice(0, code.length - total), metadata: code.slice(code.length - total) }
}

/** The compiler version in the metadata ('0.8.28'), when it is there. */
export function metadataCompilerVersion (metadata: string): string | undefined {
  const entries = decodeMetadataMap(metadata.slice(0, -4))
  const solc = entries?.get('solc')
  if (solc === undefined) return undefined
  if (typeof solc === 'string') return solc
  if (typeof solc === 'boolean') return undefined
  return solc.length === 3 ? `${solc[0]}.${solc[1]}.${solc[2]}` : undefined
}

/** A CBOR map of text keys to byte strings, text or booleans: all solc writes. Undefined when it is anything else. */
function decodeMetadataMap (hex: string): Map<string, Buffer | string | boolean> | undefined {
  const bytes = Buffer.from(hex, 'hex')
  let at = 0
  const length = (info: number): number | undefined => {
    if (info < 24) return info
    if (info === 24) return bytes[at++]
    if (info === 25) { const n = bytes.readUInt16BE(at); at += 2; return n }
    return undefined
  }
  const head = bytes[at++]
  if (head === undefined || head >> 5 !== 5) return undefined
  const entries = new Map<string, Buffer | string | boolean>()
  const count = head & 0x1f
  try {
    for (let i = 0; i < count; i++) {
      const keyHead = bytes[at++]!
      const keyLength = length(keyHead & 0x1f)
      if (keyHead >> 5 !== 3 || keyLength === undefined) return undefined
      const key = bytes.subarray(at, at += keyLength).toString('utf8')
      const valueHead = bytes[at++]!
      const major = valueHead >> 5
      if (valueHead === 0xf4 || valueHead === 0xf5) { entries.set(key, valueHead === 0xf5); continue }
      const valueLength = length(valueHead & 0x1f)
      if ((major !== 2 && major !== 3) || valueLength === undefined) return undefined
      const value = bytes.subarray(at, at += valueLength)
      entries.set(key, major === 2 ? Buffer.from(value) : value.toString('utf8'))
    }
  } catch {
    return undefined
  }
  return at === bytes.length ? entries : undefined
}

/** `compiled` with the bytes at `ranges` taken from `chain` (both hex). Ranges past either end are left as compiled. */
export function copyRanges (compiled: string, chain: string, ranges: CodeRange[]): string {
  let out = compiled
  for (const { start, length } of ranges) {
    const [from, to] = [start * 2, (start + length) * 2]
    if (to > out.length || to > chain.length) continue
    out = out.slice(0, from) + chain.slice(from, to) + out.slice(to)
  }
  return out
}

/** PUSH20 0 ADDRESS EQ: how solc begins a library's runtime code, the 20 bytes filled in at deployment. */
const CALL_PROTECTION = /^73(?:00){20}3014/
const CALL_PROTECTION_RANGE: CodeRange = { start: 1, length: 20 }

/** The call protection's address bytes when `runtime` is a library's (its compiled code); none otherwise. */
export const callProtectionRanges = (runtime: string): CodeRange[] => CALL_PROTECTION.test(runtime) ? [CALL_PROTECTION_RANGE] : []

export const immutableRanges = (references: ImmutableReferences | undefined): CodeRange[] => Object.values(references ?? {}).flat()

export const linkRanges = (references: LinkReferences | undefined): CodeRange[] =>
  Object.values(references ?? {}).flatMap((byLibrary) => Object.values(byLibrary).flat())

/** The library addresses the chain's code holds at the link references: `file:Library` -> 0x address. */
export function linkedLibraries (references: LinkReferences | undefined, chain: string): Record<string, string> {
  const libraries: Record<string, string> = {}
  for (const [file, byLibrary] of Object.entries(references ?? {})) {
    for (const [library, ranges] of Object.entries(byLibrary)) {
      const first = ranges[0]
      if (first !== undefined) libraries[`${file}:${library}`] = '0x' + chain.slice(first.start * 2, (first.start + first.length) * 2)
    }
  }
  return libraries
}

export type CompiledCode = {
  /** evm.deployedBytecode.object */
  runtime: string
  /** evm.bytecode.object */
  creation: string
  immutableReferences?: ImmutableReferences
  runtimeLinkReferences?: LinkReferences
  creationLinkReferences?: LinkReferences
}

/** Compares compiled runtime code with deployed code: full, partial (only metadata differs) or undefined. */
export function matchRuntime (compiled: CompiledCode, deployed: string): MatchType | undefined {
  const filled = copyRanges(compiled.runtime, deployed, [
    ...callProtectionRanges(compiled.runtime), ...immutableRanges(compiled.immutableReferences), ...linkRanges(compiled.runtimeLinkReferences)
  ])
  if (filled === deployed) return 'full'
  if (filled.length !== deployed.length) return undefined
  const ours = splitMetadata(filled)
  const theirs = splitMetadata(deployed)
  return ours.metadata !== '' && ours.code === theirs.code && ours.metadata.length === theirs.metadata.length ? 'partial' : undefined
}

/**
 * Compares compiled creation code with a creation transaction's input
 * (creation code followed by the constructor's arguments): the match and the
 * arguments' hex, or undefined. The creation code ends with the runtime
 * code's metadata, so a partial match skips as many bytes there.
 */
export function matchCreation (compiled: CompiledCode, input: string): { match: MatchType, constructorArgs: string } | undefined {
  const code = copyRanges(compiled.creation, input, linkRanges(compiled.creationLinkReferences))
  if (input.length < code.length) return undefined
  if (input.startsWith(code)) return { match: 'full', constructorArgs: input.slice(code.length) }
  const { code: head, metadata } = splitMetadata(code)
  if (metadata === '' || !input.startsWith(head)) return undefined
  // The same compiler and settings write a tail of the same length, ending in that length.
  if (input.slice(code.length - 4, code.length) !== code.slice(-4)) return undefined
  return { match: 'partial', constructorArgs: input.slice(code.length) }
}
