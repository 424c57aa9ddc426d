import { createCleanups, prepareProofChain, startIndexedGateway } from '../lib/proof-gateway.ts'
import { GC_ON_SIGNAL_NODE_ARGS, readMemoryAfterGc, toMiB } from '../lib/process-memory.ts'
import { createHttpClient } from './http.ts'
const c = createCleanups()
const chain = await prepareProofChain(c, { blocks: 100, transactions: 1000, prefix: 'fuzz' })
const g = await startIndexedGateway(c, chain.env, chain.info.head, { nodeArgs: GC_ON_SIGNAL_NODE_ARGS })
const client = createHttpClient(g.url, 4)
const m0 = await readMemoryAfterGc(g.pid, g.lines)
const q = (i: number) => `{ ${Array.from({ length: 40 }, (_, k) => `a${k}_${i}: block(number: ${k}) { hash number transactions(first: 2) { edges { node { hash } } } }`).join(' ')} }`
for (let i = 0; i < 3000; i++) await client.send({ method: 'POST', path: '/api/v2/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: q(i) }) })
const m1 = await readMemoryAfterGc(g.pid, g.lines)
console.log('unique queries: heap', toMiB(m0.heapUsed!), '->', toMiB(m1.heapUsed!), 'rss', toMiB(m0.rss), '->', toMiB(m1.rss))
for (let i = 0; i < 3000; i++) await client.send({ method: 'POST', path: '/api/v2/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: q(i) }) })
const m2 = await readMemoryAfterGc(g.pid, g.lines)
console.log('same again: heap', toMiB(m2.heapUsed!), 'rss', toMiB(m2.rss))
await client.close(); await c.run()
