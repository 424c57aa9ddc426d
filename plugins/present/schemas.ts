// The schemas of the shapes every API here shares: a nullable member, and
// Blockscout's address object (present.ts's addressObject makes it). REST
// routes, the presenters' own response schemas and the socket's payloads use
// them; plugins/rest/schemas.ts passes them on to the REST routes.

export const nullable = <const Type extends string>(type: Type) => ({ type: [type, 'null'] } as const)
const tagList = { type: 'array', items: { type: 'object', additionalProperties: true } } as const
/** Blockscout's Tag: the public tags an operator sets (`npm run ops -- tag`). */
const publicTagList = {
  type: 'array',
  items: { type: 'object', required: ['address_hash', 'display_name', 'label'], properties: { address_hash: { type: 'string' }, display_name: { type: 'string' }, label: { type: 'string' } } }
} as const

export const addressObject = {
  type: 'object',
  required: ['hash', 'is_contract', 'name', 'is_scam', 'reputation', 'proxy_type', 'implementations', 'is_verified', 'ens_domain_name', 'metadata'],
  properties: {
    hash: { type: 'string' },
    is_contract: nullable('boolean'),
    name: nullable('string'),
    is_scam: { type: 'boolean' },
    reputation: { type: 'string' },
    proxy_type: nullable('string'),
    implementations: { type: 'array', items: { type: 'object', properties: { address_hash: { type: 'string' }, name: nullable('string') } } },
    is_verified: nullable('boolean'),
    ens_domain_name: nullable('string'),
    metadata: { type: ['object', 'null'], additionalProperties: true },
    private_tags: tagList,
    watchlist_names: tagList,
    public_tags: publicTagList
  }
} as const
