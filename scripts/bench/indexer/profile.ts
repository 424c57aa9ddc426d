// An optional CPU profile of this process over one run (BENCH_CPU_PROFILE=<file>),
// written as a .cpuprofile (Chrome DevTools, speedscope) and summarised by
// where the self time went: which stage of the indexer, which library.
import { writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'

type ProfileNode = { id: number, callFrame: { functionName: string, url: string, lineNumber: number }, hitCount?: number }
type Profile = { nodes: ProfileNode[], startTime: number, endTime: number, samples: number[], timeDeltas: number[] }

export type ProfileShare = { name: string, ms: number, share: number }
export type ProfileSummary = { file: string, totalMs: number, byComponent: ProfileShare[], topFunctions: ProfileShare[] }

const TOP_FUNCTIONS = 15
const US_PER_MS = 1000

// First match wins: the indexer's own stages first, then what they call.
const COMPONENTS: Array<[string, RegExp]> = [
  ['indexer decode', /core\/indexer\/decode/],
  ['indexer clique signer', /core\/indexer\/clique-signer/],
  ['indexer store', /core\/indexer\/store/],
  ['indexer fetch', /core\/indexer\/fetch/],
  ['indexer (other)', /core\/indexer\//],
  ['rpc client', /core\/rpc\//],
  ['ethers (keccak, rlp, ecrecover)', /node_modules\/(ethers|@noble|@adraffy)/],
  ['pg driver', /node_modules\/(pg|pg-protocol|pg-types|pg-pool|postgres-)/],
  ['knex', /node_modules\/knex/],
  ['undici (http)', /node_modules\/undici|node:internal\/deps\/undici/],
  ['fastify', /node_modules\/(fastify|@fastify|find-my-way|avvio|light-my-request)/],
  ['autocannon/bench', /scripts\/bench/],
  ['node internals', /^node:/]
]

export async function startProfile (file: string): Promise<() => Promise<ProfileSummary>> {
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.start')
  return async () => {
    const { profile } = await session.post('Profiler.stop') as unknown as { profile: Profile }
    session.disconnect()
    await writeFile(file, JSON.stringify(profile))
    return summarise(file, profile)
  }
}

function summarise (file: string, profile: Profile): ProfileSummary {
  const selfUs = new Map<number, number>()
  for (const [i, id] of profile.samples.entries()) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
  const totalUs = profile.endTime - profile.startTime
  const byComponent = new Map<string, number>()
  const byFunction = new Map<string, number>()
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0
    if (us === 0) continue
    const { functionName, url, lineNumber } = node.callFrame
    const component = url === '' ? `(${functionName || 'native'})` : COMPONENTS.find(([, pattern]) => pattern.test(url))?.[0] ?? 'other JavaScript'
    byComponent.set(component, (byComponent.get(component) ?? 0) + us)
    const where = url === '' ? '' : ` ${url.replace(/^.*\/(node_modules|work\/main)\//, '')}:${lineNumber + 1}`
    const name = `${functionName || '(anonymous)'}${where}`
    byFunction.set(name, (byFunction.get(name) ?? 0) + us)
  }
  const shares = (map: Map<string, number>): ProfileShare[] => [...map]
    .sort((a, b) => b[1] - a[1])
    .map(([name, us]) => ({ name, ms: us / US_PER_MS, share: us / totalUs }))
  return { file, totalMs: totalUs / US_PER_MS, byComponent: shares(byComponent), topFunctions: shares(byFunction).slice(0, TOP_FUNCTIONS) }
}
