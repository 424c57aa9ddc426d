// Checks shared by the REST test files: the OpenAPI shape of a body, a list
// walked to its end, and the answers to bad input (422 with Blockscout's
// pointer, 404 Not found, 200 for tampered cursors).
import type { FastifyInstance } from 'fastify'
import { checkSpec } from './openapi.ts'
import { walkPages } from './pages.ts'

type Tap = {
  equal (found: unknown, wanted: unknown, message: string): unknown
  same (found: unknown, wanted: unknown, message: string): unknown
  ok (value: unknown, message: string): unknown
  fail (message: string): unknown
}
type Get = (url: string) => Promise<{ statusCode: number, json (): any }>

/** A checker of bodies against the spec's response for `specPath` (a no-op when ../shared is absent). */
export const specCheck = (t: Pick<Tap, 'equal'>, specPath: string) => (body: unknown): void => checkSpec(t, specPath, body)

export type BadInput = {
  /** [path, the pointer of the first error] answered 422. */
  invalid?: Array<[string, string]>
  /** Answered 404 {"message":"Not found"}. */
  missing?: string[]
  /** Answered 200: tampered cursors read an empty or a first page. */
  harmless?: string[]
}

export async function checkBadInput (t: Tap, get: Get, { invalid = [], missing = [], harmless = [] }: BadInput): Promise<void> {
  for (const [path, pointer] of invalid) {
    const response = await get(path)
    t.equal(response.statusCode, 422, path)
    t.equal(response.json().errors?.[0]?.source?.pointer, pointer, path)
  }
  for (const path of missing) {
    const response = await get(path)
    t.equal(response.statusCode, 404, path)
    t.same(response.json(), { message: 'Not found' }, path)
  }
  for (const path of harmless) t.equal((await get(path)).statusCode, 200, path)
}

export type Page<Item> = { items: Item[], next_page_params: Record<string, unknown> | null }

/**
 * Every item of a list through `app.inject`, each page checked against the
 * spec's `specPath` response, `extra` (filters Blockscout does not echo) sent
 * with every page; no item may repeat.
 */
export async function walkList<Item> (t: Tap, app: FastifyInstance, path: string, specPath: string, extra: Record<string, string> = {}): Promise<{ items: Item[], pages: Array<Page<Item>> }> {
  return await walkPages(t, async (url) => await app.inject({ method: 'GET', url }), path, {
    resend: extra,
    key: (item) => JSON.stringify(item),
    check: (body) => checkSpec(t, specPath, body),
    pageSize: Number(extra.limit ?? 50)
  })
}
