// What names an address on the explorer's pages: its verified contract's
// name, its token's name and the public tag an operator gave it
// (core/address-names keeps them for a page; plugins/rest shows them).
import { hexColumn } from '../sql/columns.ts'
import type { QueryDb } from '../sql/query-db.ts'

export type AddressNameRow = { address: string, verified_name: string | null, token_name: string | null, tag: string | null }

/**
 * The named among `addresses` (20 bytes each, no repeats), in one read of
 * three primary keys per address: an address none of them names has no row.
 * Prepared: every page of every list asks it, and its one plan (probes by
 * primary key, for any number of addresses) needs no planning per request.
 */
export async function readAddressNames (db: QueryDb, addresses: readonly Buffer[]): Promise<AddressNameRow[]> {
  if (addresses.length === 0) return []
  return await db.prepared.rows<AddressNameRow>(`select ${hexColumn('h.hash')} as address, v.name as verified_name, k.name as token_name, p.name as tag
    from unnest($1::bytea[]) h(hash)
      left join verified_contracts v on v.address = h.hash
      left join tokens k on k.address = h.hash
      left join public_tags p on p.address = h.hash
    where v.address is not null or k.name is not null or p.address is not null`, [addresses])
}
