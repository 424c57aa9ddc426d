// The API key table's operations, shared by `npm run ops -- keys` and the
// admin API. A key is returned in clear only by create and rotate, once.
import type { Knex } from 'knex'
import { ApiKeyAmbiguousError, ApiKeyNotFoundError } from '../errors.ts'
import { generateApiKey, hashApiKey } from './key-format.ts'
import { announceKeyChange } from './notify.ts'

export const API_KEY_TIERS = ['public', 'premium'] as const
export type ApiKeyTier = typeof API_KEY_TIERS[number]

/** What a request needs to know of its key; `revokedAt` may lie ahead (a rotated key's grace period). */
export type ApiKeyRecord = { id: string, label: string, tier: ApiKeyTier, limitPerMin: number | null, revokedAtMs: number | null }

/** Whether a request's key (null or undefined: none) may call the premium JSON-RPC methods and pays their weight. */
export function isPremiumKey (key: ApiKeyRecord | null | undefined): boolean {
  return key?.tier === 'premium'
}

/** A key as the operator sees it: everything but the key. Times are ISO 8601. */
export type ApiKeyListing = {
  id: string
  label: string
  tier: ApiKeyTier
  limit_per_min: number | null
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
  requests_today: number
  rejections_today: number
}

export type NewApiKey = { label: string, tier: ApiKeyTier, limitPerMin?: number | null }
export type CreatedApiKey = { key: string, listing: ApiKeyListing }

const LISTING_COLUMNS = `k.id::text as id, k.label, k.tier, k.limit_per_min,
  to_char(k.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at,
  to_char(k.last_used_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as last_used_at,
  to_char(k.revoked_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as revoked_at,
  coalesce(u.requests, 0)::float8 as requests_today, coalesce(u.rejections, 0)::float8 as rejections_today`
const LISTING_FROM = 'api_keys k left join api_key_usage u on u.key_id = k.id and u.day = (now() at time zone \'UTC\')::date'

/** The key for a request, by its hash: one indexed equality. */
export async function findApiKeyByHash (db: Knex, keyHash: Buffer): Promise<ApiKeyRecord | undefined> {
  const row = await db('api_keys').first(db.raw('id::text as id'), 'label', 'tier', 'limit_per_min',
    db.raw('(extract(epoch from revoked_at) * 1000)::float8 as revoked_at_ms')).where('key_hash', keyHash)
  if (row === undefined) return undefined
  return { id: row.id, label: row.label, tier: row.tier, limitPerMin: row.limit_per_min, revokedAtMs: row.revoked_at_ms }
}

export async function createApiKey (db: Knex, o: NewApiKey): Promise<CreatedApiKey> {
  return await db.transaction(async (trx) => await insertKey(trx, o))
}

async function insertKey (trx: Knex.Transaction, o: NewApiKey): Promise<CreatedApiKey> {
  const key = generateApiKey()
  const keyHash = hashApiKey(key)
  const [{ id }] = await trx('api_keys').insert({ key_hash: keyHash, label: o.label, tier: o.tier, limit_per_min: o.limitPerMin ?? null }).returning(trx.raw('id::text as id'))
  // A key created here may have been tried (and cached as unknown) on another instance already.
  await announceKeyChange(trx, keyHash)
  return { key, listing: (await listKeys(trx, id))[0]! }
}

/** Every key, newest first, with today's usage (UTC day). */
export async function listApiKeys (db: Knex): Promise<ApiKeyListing[]> {
  return await listKeys(db)
}

async function listKeys (db: Knex | Knex.Transaction, id?: string): Promise<ApiKeyListing[]> {
  const { rows } = await db.raw<{ rows: ApiKeyListing[] }>(
    `select ${LISTING_COLUMNS} from ${LISTING_FROM} ${id === undefined ? '' : 'where k.id = ?'} order by k.id desc`, id === undefined ? [] : [id])
  return rows
}

/** Live keys named by id (digits) or label. */
async function findLive (trx: Knex.Transaction, ref: string): Promise<Array<{ id: string, key_hash: Buffer }>> {
  const query = trx('api_keys').select(trx.raw('id::text as id'), 'key_hash')
    .where((q) => { q.whereNull('revoked_at').orWhere('revoked_at', '>', trx.fn.now()) })
    .forUpdate()
  const rows = /^\d{1,18}$/.test(ref) ? await query.where('id', ref) : await query.where('label', ref)
  if (rows.length === 0) throw new ApiKeyNotFoundError(JSON.stringify(ref))
  return rows
}

/** Revokes the key with this id, or every live key with this label, now. */
export async function revokeApiKeys (db: Knex, ref: string): Promise<ApiKeyListing[]> {
  return await db.transaction(async (trx) => {
    const live = await findLive(trx, ref)
    await trx('api_keys').whereIn('id', live.map((k) => k.id)).update({ revoked_at: trx.fn.now() })
    for (const k of live) await announceKeyChange(trx, k.key_hash)
    return (await Promise.all(live.map(async (k) => await listKeys(trx, k.id)))).flat()
  })
}

/** A new key with the old one's label, tier and limit; the old one stops working after `graceSeconds`. */
export async function rotateApiKey (db: Knex, ref: string, graceSeconds: number): Promise<CreatedApiKey & { old: ApiKeyListing }> {
  return await db.transaction(async (trx) => {
    const live = await findLive(trx, ref)
    if (live.length > 1) throw new ApiKeyAmbiguousError(JSON.stringify(ref))
    const old = live[0]!
    const [current] = await listKeys(trx, old.id)
    await trx('api_keys').where('id', old.id).update({ revoked_at: trx.raw('now() + make_interval(secs => ?)', [graceSeconds]) })
    await announceKeyChange(trx, old.key_hash)
    const created = await insertKey(trx, { label: current!.label, tier: current!.tier, limitPerMin: current!.limit_per_min })
    return { ...created, old: (await listKeys(trx, old.id))[0]! }
  })
}
