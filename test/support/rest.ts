// REST test helpers: a response checked against Blockscout's OpenAPI schema,
// and a list walked to its end through next_page_params.
import type { FastifyInstance } from 'fastify'
import { responseValidator } from './openapi.ts'

type Assert = { equal (found: unknown, wanted: unknown, message: string): unknown }

/** Checks `body` against the spec's response schema for `specPath` (skipped when ../shared is absent). */
export function checkSpec (t: Assert, specPath: string, body: unknown): void {
  const validate = responseValidator(specPath)
  if (validate !== undefined) t.equal(validate(body), undefined, `${specPath} matches Blockscout's OpenAPI schema`)
}

export type Page<Item> = { items: Item[], next_page_params: Record<string, unknown> | null }

/**
 * Every item of a list, page by page: each page is checked against the spec,
 * full pages hold 50 items, and each next page is asked for with
 * next_page_params sent back unchanged (plus `extra`, which Blockscout does not echo).
 */
export async function walkPages<Item> (t: Assert, app: FastifyInstance, path: string, specPath: string, extra: Record<string, string> = {}): Promise<{ items: Item[], pages: Array<Page<Item>> }> {
  const items: Item[] = []
  const pages: Array<Page<Item>> = []
  let query = new URLSearchParams(extra).toString()
  for (let guard = 0; guard < 100; guard++) {
    const response = await app.inject({ method: 'GET', url: `${path}${query === '' ? '' : '?' + query}` })
    t.equal(response.statusCode, 200, `${path}?${query}`)
    const body = response.json() as Page<Item>
    checkSpec(t, specPath, body)
    items.push(...body.items)
    pages.push(body)
    if (body.next_page_params === null) return { items, pages }
    t.equal(body.items.length, Number(extra.limit ?? 50), 'a page that has a next one is full')
    query = new URLSearchParams({ ...Object.fromEntries(Object.entries(body.next_page_params).map(([k, v]) => [k, String(v)])), ...extra }).toString()
  }
  throw new Error(`${path}: more than 100 pages`)
}
