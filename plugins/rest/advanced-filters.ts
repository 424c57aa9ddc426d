// Blockscout's advanced filter API, so far its method list: the methods the
// filter page offers to pick from, and the lookup of one by 4-byte selector or
// name as the user types. Blockscout resolves names it has no list entry for
// from verified contracts' ABIs; this index has no verified contracts, so an
// unknown selector comes back with an empty name, an unknown name with nothing.
// The list is the methods testnet contracts most often expose (tokens, NFTs,
// wrapped ether, ownership), their selectors worked out from the signatures.
import { id } from 'ethers'
import type { FastifyInstance } from 'fastify'
import { query, validationError } from './schemas.ts'

const SIGNATURES = [
  'transfer(address,uint256)', 'transferFrom(address,address,uint256)', 'approve(address,uint256)', 'mint(address,uint256)',
  'burn(uint256)', 'deposit()', 'withdraw(uint256)', 'safeTransferFrom(address,address,uint256)', 'setApprovalForAll(address,bool)',
  'transferOwnership(address)', 'renounceOwnership()', 'multicall(bytes[])', 'claim()', 'stake(uint256)', 'swap(uint256,uint256,address,bytes)'
]

type Method = { method_id: string, name: string }

export const KNOWN_METHODS: readonly Method[] = SIGNATURES.map((signature) => ({ method_id: id(signature).slice(0, 10), name: signature.slice(0, signature.indexOf('(')) }))

const SELECTOR = /^0x[0-9a-f]{8}$/

/** Blockscout's answer for `q`: the known method it names, a bare selector, or nothing. */
export function findMethods (q: string): Method[] {
  const wanted = q.toLowerCase()
  const known = KNOWN_METHODS.find((m) => m.method_id === wanted || m.name.toLowerCase() === wanted)
  if (known !== undefined) return [known]
  return SELECTOR.test(wanted) ? [{ method_id: wanted, name: '' }] : []
}

const method = {
  type: 'object',
  required: ['method_id', 'name'],
  properties: { method_id: { type: 'string', pattern: '^0x[0-9a-f]{8}$' }, name: { type: 'string', description: 'Empty when the selector names no method known here' } }
}

export async function advancedFilterRoutes (app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: { q?: string } }>('/advanced-filters/methods', {
    schema: {
      tags: ['advanced-filters'],
      summary: 'Contract methods to filter by: a list of common ones, or the one `q` names (4-byte selector or name)',
      querystring: query({ q: { type: 'string', maxLength: 200 } }),
      response: { 200: { type: 'array', items: method }, 422: validationError }
    }
  }, async (request) => request.query.q === undefined ? KNOWN_METHODS : findMethods(request.query.q))
}
