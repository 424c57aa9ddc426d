// Walks a keyset-paginated REST list to its end through next_page_params, as
// an explorer does: every key sent back unchanged, plus the filters Blockscout
// does not echo (type). Checks each page's size and that nothing repeats.
type Tap = {
  equal (found: unknown, wanted: unknown, message: string): unknown
  ok (value: unknown, message: string): unknown
  fail (message: string): unknown
}
type Response = { statusCode: number, json (): any }

export type WalkOptions = {
  /** Sent with every page: filters Blockscout does not echo. */
  resend?: Record<string, string>
  /** Keys every next_page_params must carry. */
  cursorKeys?: string[]
  /** Identity of an item, to find repeats. */
  key: (item: any) => string
  /** Called with each page's body (e.g. the OpenAPI check). */
  check?: (body: unknown) => void
  pageSize?: number
}

export async function walkPages (t: Tap, get: (url: string) => Promise<Response>, path: string, options: WalkOptions): Promise<{ items: any[], pages: any[] }> {
  const items: any[] = []
  const pages: any[] = []
  const seen = new Set<string>()
  const size = options.pageSize ?? 50
  let params: Record<string, string> = { ...options.resend }
  for (let page = 0; page < 1000; page++) {
    const query = new URLSearchParams(params).toString()
    const response = await get(query === '' ? path : `${path}?${query}`)
    t.equal(response.statusCode, 200, `${path}?${query} answers 200`)
    const body = response.json()
    options.check?.(body)
    pages.push(body)
    for (const item of body.items) {
      const key = options.key(item)
      if (seen.has(key)) t.fail(`${path}: ${key} repeats on page ${page + 1}`)
      seen.add(key)
      items.push(item)
    }
    if (body.next_page_params === null) {
      t.ok(body.items.length <= size, `${path}: the last page holds at most ${size} items`)
      return { items, pages }
    }
    t.equal(body.items.length, size, `${path}: a page with a next page is full`)
    for (const key of options.cursorKeys ?? []) t.ok(key in body.next_page_params, `${path}: next_page_params has ${key}`)
    params = { ...options.resend, ...Object.fromEntries(Object.entries(body.next_page_params).map(([k, v]) => [k, v === null ? 'null' : String(v)])) }
  }
  t.fail(`${path}: more than 1000 pages`)
  return { items, pages }
}
