// Checks shared by the REST test files: the OpenAPI shape of a body, and the
// answers to bad input (422 with Blockscout's pointer, 404 Not found, 200 for
// tampered cursors).
import { checkSpec } from './openapi.ts'

type Tap = {
  equal (found: unknown, wanted: unknown, message: string): unknown
  same (found: unknown, wanted: unknown, message: string): unknown
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
