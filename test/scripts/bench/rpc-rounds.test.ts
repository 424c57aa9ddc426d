// bench:rpc's rounds (scripts/bench/rpc-rounds.ts): both sides warmed, then
// measured in turns, each round starting with the other side; the median
// ratio against the workload's target, CPU per request and the hit ratio.
import t from 'tap'
import { measureWorkload, workloadFigures, type WorkloadRound } from '../../../scripts/bench/rpc-rounds.ts'
import type { LoadResult } from '../../../scripts/bench/load-generator.ts'
import type { RpcWorkload } from '../../../scripts/bench/rpc-workloads.ts'

const result = (reqPerS: number, seconds: number): LoadResult => ({
  requests: reqPerS * seconds, reqPerS, seconds, p50Ms: 1, p99Ms: 2, non200: 0, errors: 0, timeouts: 0, sampled: 1, sampleFailures: 0, firstFailure: undefined, loadGeneratorCores: 0.5
})

const side = (reqPerS: number) => ({ reqPerS, p50Ms: 1, p99Ms: 2, requests: reqPerS, gatewayUsPerRequest: 50, gethUsPerRequest: 10 })

t.test('workloadFigures() takes the median ratio over rounds against the target, and CPU of the whole path', async (t) => {
  const rounds: WorkloadRound[] = [1.2, 0.9, 1.6].map((ratio) => ({ direct: side(100), gateway: side(100 * ratio), ratio, hitRatio: ratio / 2 }))
  const figures = workloadFigures('mix', 1.5, rounds)
  t.equal(figures.medianRatio, 1.2)
  t.equal(figures.pass, false, '1.2 misses a 1.5 target')
  t.equal(figures.directUsPerRequest, 10, 'directly: Geth alone')
  t.equal(figures.gatewayUsPerRequest, 60, 'through the gateway: the gateway and Geth')
  t.equal(figures.hitRatio, 0.6)
  t.equal(workloadFigures('cold', 0.9, rounds).pass, true)
})

t.test('measureWorkload() warms both sides, measures them in turns, starts each round with the other side and counts hits on the gateway only', async (t) => {
  const calls: string[] = []
  const errors = console.error
  console.error = () => {}
  t.teardown(() => { console.error = errors })
  const counters = { hits: 0, misses: 0, bypassed: 0 }
  const jobsMade: string[] = []
  const workload: RpcWorkload = {
    name: 'test',
    target: 1,
    job: async (url, s, round) => { jobsMade.push(`${s} ${round}`); return { url, connections: 1, sampleEvery: 1 } }
  }
  const figures = await measureWorkload(workload, {
    rounds: 2,
    durationS: 2,
    warm: async (job) => { calls.push(`warm ${job.url}`) },
    run: async (job, s) => {
      calls.push(job.url)
      if (job.url === 'gateway') { counters.hits += 3; counters.misses += 1 } else counters.misses += 100
      return result(job.url === 'gateway' ? 150 : 100, s)
    },
    urls: { direct: 'direct', gateway: 'gateway' },
    gethPid: undefined,
    cacheCounters: () => ({ ...counters })
  })
  t.same(jobsMade, ['direct 1', 'gateway 1', 'gateway 2', 'direct 2'], 'a job per side and round')
  t.same(calls, ['warm direct', 'warm gateway', 'direct', 'gateway', 'direct', 'gateway', 'warm gateway', 'warm direct', 'gateway', 'direct', 'gateway', 'direct'])
  t.equal(figures.medianRatio, 1.5)
  t.equal(figures.hitRatio, 0.75, 'what the direct side did is not counted')
  t.equal(figures.directUsPerRequest, null, 'no Geth process to read: no whole-path CPU')
  await t.rejects(measureWorkload(workload, {
    rounds: 1, durationS: 1, warm: async () => {}, run: async (_, s) => ({ ...result(1, s), sampleFailures: 1 }), urls: { direct: 'a', gateway: 'b' }, gethPid: undefined, cacheCounters: () => undefined
  }), /1 bad samples/, 'a failed response stops the benchmark')
})
