// Blockscout's JSON shapes from stored rows: big numbers as strings,
// checksummed addresses in address objects, ISO timestamps with microseconds.
import { checksumAddress } from '../../core/decode/checksum.ts'
import type { FastifyReply } from 'fastify'
import type { BlockRecord } from '../../core/queries/blocks/blocks.ts'
import { NO_NAMES, type AddressName, type AddressNames } from '../../core/address-names/index.ts'

export const hex = (bytes: Buffer): string => '0x' + bytes.toString('hex')

/** The bytes of a 0x-hex string the route's schema has already checked: hex's inverse. */
export const hashBytes = (hash: string): Buffer => Buffer.from(hash.slice(2), 'hex')

/** "2025-09-15T13:52:12.000000Z": Blockscout prints microseconds. */
// toISOString() always ends in ".sssZ" (years 0 to 9999): three zeros before
// the Z make microseconds, without a regular expression per row.
export const msTimestamp = (ms: number): string => new Date(ms).toISOString().slice(0, -1) + '000Z'

/** The same, from epoch seconds (core/queries/sql/columns.ts's epochColumn). */
export const epochTimestamp = (seconds: number): string => msTimestamp(seconds * 1000)

/** An address as read through hexColumn (lowercase 0x-hex), as 40 hex digits: the caches' key. */
const addressKey = (address: string): string => address.slice(2)

// EIP-55 checksums are kept in one table with core's decodings (core/decode/checksum.ts).
export { checksumAddress }

/** Address objects kept; past it the table starts over. */
const ADDRESS_OBJECTS_MAX = 100_000

// Address objects are built once per address and shown frozen: a page of 50
// transactions holds 150 of them, and allocating each anew was a large share
// of a page's garbage collection. Their JSON text is kept beside them, for
// answers written as text (core/queries/transactions/rest-transaction-json.ts). A named
// address's object is kept with the name it shows, and made again when the
// page's names (core/address-names) bring another.
type NamedEntry = { of: AddressName, isContract: boolean, object: AddressObject, json?: string }
type AddressEntry = { plain?: AddressObject, contract?: AddressObject, plainJson?: string, contractJson?: string, named?: NamedEntry }
const addressObjects = new Map<string, AddressEntry>()
const NO_ITEMS: never[] = Object.freeze([]) as unknown as never[]

type AddressObject = Readonly<ReturnType<typeof buildAddressObject>>
/** Blockscout's Tag: `label` is its machine name, `display_name` what is shown. */
type PublicTag = { address_hash: string, display_name: string, label: string }

function buildAddressObject (hash: string, isContract: boolean) {
  return {
    hash,
    is_contract: isContract,
    name: null as string | null,
    is_scam: false,
    reputation: 'ok',
    proxy_type: null as string | null,
    implementations: NO_ITEMS as Array<{ address_hash: string, name: string | null }>,
    is_verified: false,
    ens_domain_name: null,
    metadata: null,
    private_tags: NO_ITEMS,
    watchlist_names: NO_ITEMS,
    public_tags: NO_ITEMS as PublicTag[]
  }
}

/** An operator's tag as Blockscout's public tag: shown as given, with a machine label made of it (lower case, words joined by hyphens). */
export function publicTag (hash: string, name: string): PublicTag {
  return Object.freeze({ address_hash: hash, display_name: name, label: name.trim().toLowerCase().replace(/\s+/g, '-') })
}

function addressEntry (address: string): AddressEntry {
  const key = addressKey(address)
  let entry = addressObjects.get(key)
  if (entry === undefined) {
    if (addressObjects.size >= ADDRESS_OBJECTS_MAX) addressObjects.clear()
    entry = {}
    addressObjects.set(key, entry)
  }
  return entry
}

function plainObject (entry: AddressEntry, address: string, isContract: boolean): AddressObject {
  const side = isContract ? 'contract' : 'plain'
  return (entry[side] ??= Object.freeze(buildAddressObject(checksumAddress(address), isContract)))
}

/** The page's name of `address`, if it has one. */
const nameOf = (names: AddressNames, address: string): AddressName | undefined =>
  names.size === 0 ? undefined : names.get('0x' + addressKey(address))

function namedEntry (entry: AddressEntry, address: string, isContract: boolean, named: AddressName): NamedEntry {
  if (entry.named?.of === named && entry.named.isContract === isContract) return entry.named
  const plain = plainObject(entry, address, isContract)
  const object = Object.freeze({
    ...plain,
    name: named.name,
    is_verified: named.isVerified,
    public_tags: named.tag === null ? NO_ITEMS : Object.freeze([publicTag(plain.hash, named.tag)]) as PublicTag[]
  })
  return (entry.named = { of: named, isContract, object })
}

/**
 * Blockscout's address object: what the index knows (whether it has code)
 * and the name, verification and public tag the page read (`names`).
 */
export function addressObject (address: string, isContract: boolean, names: AddressNames = NO_NAMES): AddressObject {
  const entry = addressEntry(address)
  const named = nameOf(names, address)
  return named === undefined ? plainObject(entry, address, isContract) : namedEntry(entry, address, isContract, named).object
}

/** addressObject as JSON text. */
export function addressJson (address: string, isContract: boolean, names: AddressNames = NO_NAMES): string {
  const entry = addressEntry(address)
  const named = nameOf(names, address)
  if (named !== undefined) {
    const shown = namedEntry(entry, address, isContract, named)
    return (shown.json ??= JSON.stringify(shown.object))
  }
  const side = isContract ? 'contractJson' : 'plainJson'
  return (entry[side] ??= JSON.stringify(plainObject(entry, address, isContract)))
}

/** JSON text as a route's answer: Fastify sends a string with a JSON content type as it is. */
export const JSON_TEXT = 'application/json; charset=utf-8'
/** JSON text made here, sent as it is: no response schema serialises it again (nor types it). */
export const sendJsonText = async (reply: FastifyReply, text: string): Promise<FastifyReply> => await reply.type(JSON_TEXT).send(text)

/** A keyset page whose items are JSON text already. */
export const jsonPage = (page: { items: string[], next_page_params: Record<string, unknown> | null }): string =>
  '{"items":[' + page.items.join(',') + '],"next_page_params":' + JSON.stringify(page.next_page_params) + '}'

/** EIP-1559 elasticity: the gas target is half the limit. */
const ELASTICITY_MULTIPLIER = 2n

/** Who made the block: clique blocks name the zero address as miner, the signer is who sealed it. */
export const blockMiner = (b: BlockRecord): string => b.signer ?? b.miner

/** A Block; the list variant leaves the detail-only counts null, as Blockscout does. */
export function presentBlock (b: BlockRecord, variant: 'list' | 'detail', names: AddressNames = NO_NAMES) {
  const gasUsed = BigInt(b.gas_used)
  const gasLimit = BigInt(b.gas_limit)
  const fees = BigInt(b.transaction_fees)
  const burnt = b.base_fee_per_gas === null ? null : BigInt(b.base_fee_per_gas) * gasUsed
  const target = gasLimit / ELASTICITY_MULTIPLIER
  return {
    height: b.number,
    hash: b.hash,
    parent_hash: b.parent_hash,
    timestamp: epochTimestamp(b.timestamp),
    transactions_count: b.transaction_count,
    internal_transactions_count: variant === 'detail' ? b.internal_transaction_count : null,
    withdrawals_count: variant === 'detail' ? 0 : null,
    miner: addressObject(blockMiner(b), b.signer_is_contract, names),
    size: b.size,
    difficulty: b.difficulty,
    total_difficulty: b.total_difficulty,
    gas_used: b.gas_used,
    gas_limit: b.gas_limit,
    nonce: b.nonce,
    base_fee_per_gas: b.base_fee_per_gas,
    burnt_fees: burnt === null ? null : burnt.toString(),
    priority_fee: b.priority_fees,
    transaction_fees: fees.toString(),
    gas_used_percentage: gasLimit === 0n ? 0 : Number(gasUsed * 10000n / gasLimit) / 100,
    gas_target_percentage: target === 0n ? 0 : Number((gasUsed - target) * 10000n / target) / 100,
    burnt_fees_percentage: burnt === null || fees === 0n ? null : Number(burnt * 10000n / fees) / 100,
    uncles_hashes: [],
    rewards: [],
    type: 'block' as const,
    is_pending_update: false
  }
}
