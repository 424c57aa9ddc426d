// `npm run ops -- keys ...`: API keys on the gateway's database (core/api-keys).
import { createApiKey, listApiKeys, revokeApiKeys, rotateApiKey, type ApiKeyListing } from '../../core/api-keys/store.ts'
import type { Knex } from 'knex'
import type { KeysCommand } from './keys-args.ts'

const COLUMNS: Array<[string, (k: ApiKeyListing) => string]> = [
  ['id', (k) => k.id],
  ['label', (k) => k.label],
  ['tier', (k) => k.tier],
  ['limit', (k) => k.limit_per_min === null ? '-' : String(k.limit_per_min)],
  ['created', (k) => k.created_at],
  ['last used', (k) => k.last_used_at ?? '-'],
  ['requests today', (k) => String(k.requests_today)],
  ['revoked', (k) => k.revoked_at ?? '-']
]

function table (keys: ApiKeyListing[]): string[] {
  const rows = [COLUMNS.map(([name]) => name), ...keys.map((k) => COLUMNS.map(([, cell]) => cell(k)))]
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)))
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd())
}

/** Runs one keys command; the key itself is printed only by create and rotate, once. */
export async function runKeys (db: Knex, command: KeysCommand, out: (line: string) => void): Promise<number> {
  switch (command.action) {
    case 'create': {
      const { key, listing } = await createApiKey(db, { label: command.label, tier: command.tier, limitPerMin: command.limitPerMin })
      out(`key ${listing.id} (${listing.label}, ${listing.tier}${listing.limit_per_min === null ? '' : `, ${listing.limit_per_min}/min`}):`)
      out(key)
      out('Shown once: only its hash is stored.')
      break
    }
    case 'list': {
      const keys = await listApiKeys(db)
      // For scripts: the listing's own fields (what the table shows, and today's rejections), never the key.
      if (command.json) out(JSON.stringify(keys, null, 2))
      else for (const line of table(keys)) out(line)
      break
    }
    case 'revoke':
      for (const k of await revokeApiKeys(db, command.ref)) out(`revoked key ${k.id} (${k.label})`)
      break
    case 'rotate': {
      const { key, listing, old } = await rotateApiKey(db, command.ref, command.graceSeconds)
      out(`key ${listing.id} replaces key ${old.id} (${listing.label}), which stops working at ${old.revoked_at ?? '?'}:`)
      out(key)
      out('Shown once: only its hash is stored.')
      break
    }
  }
  return 0
}
