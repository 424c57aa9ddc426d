// Distinct queries do not pile up in memory: mercurius keeps each document
// parsed and JIT-compiled (about 0.9 MB for one of 40 aliased fields), and a
// client sending many distinct ones made the gateway hold them by the
// thousand (found by npm run fuzz).
import t from 'tap'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { build } from '../../helper.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const heapAfterGc = (): number => { gc(); gc(); return process.memoryUsage().heapUsed }

const DISTINCT_QUERIES = 600
const ALIASES = 40
/** Far under what 600 cached documents hold, far over what 64 do. */
const MAX_GROWTH_BYTES = 100 * 1024 * 1024

const { app } = await build(t)

t.test('distinct GraphQL queries are cached a bounded number at a time', async (t) => {
  const query = (i: number): string => `{ ${Array.from({ length: ALIASES }, (_, k) => `a${k}_${i}: block(number: 0) { hash number transactions(first: 2) { edges { node { hash } } } }`).join(' ')} }`
  // Warm: the first queries compile the resolvers' shared code.
  for (let i = 0; i < 5; i++) await app.inject({ method: 'POST', url: '/api/v2/graphql', payload: { query: query(-1 - i) } })
  const before = heapAfterGc()
  for (let i = 0; i < DISTINCT_QUERIES; i++) {
    const response = await app.inject({ method: 'POST', url: '/api/v2/graphql', payload: { query: query(i) } })
    if (response.statusCode !== 200) t.fail(`query ${i}: ${response.body.slice(0, 200)}`)
  }
  const growth = heapAfterGc() - before
  t.ok(growth < MAX_GROWTH_BYTES, `heap grew ${(growth / 1024 / 1024).toFixed(1)} MB over ${DISTINCT_QUERIES} distinct queries`)
})
