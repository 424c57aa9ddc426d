// Public tags: names an operator gives addresses (`npm run ops -- tag`), the
// interpreter's last resort for naming an address, shown by the REST API as
// Blockscout's public_tags. Setting or removing one forgets the cached
// summaries that name the address, and tells every instance (core/address-names).
import type { Knex } from 'knex'
import { invalidateInterpretations } from './cache.ts'
import { announceNameChange } from '../address-names/notify.ts'

/** Longer names would not fit a summary line. */
export const MAX_TAG_LENGTH = 64

const bytes = (address: string) => Buffer.from(address.slice(2), 'hex')

/** Tags `address` (0x-hex) with `name`, or removes its tag when `name` is undefined. Returns the summaries forgotten. */
export async function setPublicTag (db: Knex, address: string, name: string | undefined): Promise<number> {
  if (name === undefined) await db('public_tags').where('address', bytes(address)).delete()
  else {
    await db.raw(`insert into public_tags (address, name) values (?, ?)
      on conflict (address) do update set name = excluded.name, created_at = now()`, [bytes(address), name])
  }
  const forgotten = await invalidateInterpretations(db, [address])
  await announceNameChange(db, address)
  return forgotten
}
