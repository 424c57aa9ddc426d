// The operator's key API at /admin/api/keys (create, list, revoke, rotate),
// for a sign-up or billing page of the operator's own. Served only when
// ADMIN_TOKEN is set; every call sends it as Authorization: Bearer.
import type { App } from '../app.ts'
import { API_KEY_TIERS, createApiKey, listApiKeys, revokeApiKeys, rotateApiKey } from '../../core/api-keys/store.ts'
import { AdminUnauthorizedError } from '../../core/errors.ts'
import { createBearerTokenCheck } from '../../core/net/bearer-token.ts'

export type AdminRoutesOptions = { adminToken: string }

const TAGS = ['admin']
const MAX_GRACE_SECONDS = 30 * 24 * 3600

const listing = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    label: { type: 'string' },
    tier: { type: 'string', enum: [...API_KEY_TIERS] },
    limit_per_min: { type: ['integer', 'null'], description: 'The key\'s own limit; null uses its tier\'s' },
    created_at: { type: 'string' },
    last_used_at: { type: ['string', 'null'] },
    revoked_at: { type: ['string', 'null'], description: 'When the key stops (stopped) working' },
    requests_today: { type: 'integer', description: 'Requests today (UTC), as of the last usage flush (every 5 s)' },
    rejections_today: { type: 'integer' }
  }
} as const
const created = {
  type: 'object',
  properties: { key: { type: 'string', description: 'The key itself: shown this once, stored only as a hash' }, ...listing.properties }
} as const
const errorBody = { type: 'object', properties: { statusCode: { type: 'integer' }, code: { type: 'string' }, error: { type: 'string' }, message: { type: 'string' } } } as const
const refParams = { type: 'object', required: ['ref'], properties: { ref: { type: 'string', minLength: 1, maxLength: 200, description: 'Key id or label' } } } as const
const security = [{ adminToken: [] }]
const errors = { 400: errorBody, 401: errorBody, 404: errorBody, 409: errorBody }

export async function adminRoutes (app: App, options: AdminRoutesOptions): Promise<void> {
  const isAdmin = createBearerTokenCheck(options.adminToken)
  app.addHook('onRequest', async (request) => {
    if (!isAdmin(request.headers.authorization)) throw new AdminUnauthorizedError()
  })
  const db = app.db.knex

  app.get('/admin/api/keys', {
    schema: { tags: TAGS, summary: 'Every API key (never the key itself), with today\'s usage', security, response: { 200: { type: 'array', items: listing }, 401: errorBody } }
  }, async () => await listApiKeys(db))

  app.post('/admin/api/keys', {
    schema: {
      tags: TAGS,
      summary: 'Create an API key; the answer holds the key, shown this once',
      security,
      body: {
        type: 'object',
        required: ['label'],
        additionalProperties: false,
        properties: {
          label: { type: 'string', minLength: 1, maxLength: 200 },
          tier: { type: 'string', enum: [...API_KEY_TIERS], default: 'premium' },
          limit_per_min: { type: 'integer', minimum: 1, description: 'Its own requests a minute, instead of the tier\'s' }
        }
      } as const,
      response: { 201: created, ...errors }
    }
  }, async (request, reply) => {
    const { key, listing } = await createApiKey(db, { label: request.body.label, tier: request.body.tier ?? 'premium', limitPerMin: request.body.limit_per_min })
    return await reply.code(201).send({ key, ...listing })
  })

  app.post('/admin/api/keys/:ref/revoke', {
    schema: { tags: TAGS, summary: 'Revoke the key with this id, or every live key with this label, now', security, params: refParams, response: { 200: { type: 'array', items: listing }, ...errors } }
  }, async (request) => await revokeApiKeys(db, request.params.ref))

  app.post('/admin/api/keys/:ref/rotate', {
    schema: {
      tags: TAGS,
      summary: 'A new key with the same label, tier and limit; the old one keeps working for grace_seconds',
      security,
      params: refParams,
      body: { type: ['object', 'null'], additionalProperties: false, properties: { grace_seconds: { type: 'integer', minimum: 0, maximum: MAX_GRACE_SECONDS, default: 0 } } } as const,
      response: { 201: { ...created, properties: { ...created.properties, old: listing } }, ...errors }
    }
  }, async (request, reply) => {
    const rotated = await rotateApiKey(db, request.params.ref, request.body?.grace_seconds ?? 0)
    return await reply.code(201).send({ key: rotated.key, ...rotated.listing, old: rotated.old })
  })
}
