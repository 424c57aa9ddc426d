// The access benchmark's rounds: every instance warmed, then measured in
// slices taken in turns, each round starting with the next instance.
import t from 'tap'
import { ACCESS_ROUNDS, accessFigures, measureAccessRounds, type AccessInstance } from '../../../scripts/bench/access.ts'
import type { LoadResult } from '../../../scripts/bench/load-generator.ts'

const result = (reqPerS: number, seconds: number, p99Ms = 1): LoadResult => ({
  requests: reqPerS * seconds, reqPerS, seconds, p50Ms: 1, p99Ms, non200: 0, errors: 0, timeouts: 0, sampled: 1, sampleFailures: 0, firstFailure: undefined, loadGeneratorCores: 0.5
})

t.test('each access round warms every instance, then measures them in turns', async (t) => {
  const instances: AccessInstance[] = [{ variant: 'off', url: 'a' }, { variant: 'memory', url: 'b' }]
  const calls: string[] = []
  const errors = console.error
  console.error = () => {}
  t.teardown(() => { console.error = errors })
  const rounds = await measureAccessRounds('test', instances, 2, {
    warm: async (i) => { calls.push(`warm ${i.variant}`) },
    measure: async (i, sliceS) => {
      calls.push(i.variant)
      return result(i.variant === 'off' ? 100 : 90, sliceS)
    }
  })
  t.equal(rounds.length, ACCESS_ROUNDS)
  t.same(calls.slice(0, 6), ['warm off', 'warm memory', 'off', 'memory', 'off', 'memory'])
  t.same(calls.slice(6, 9), ['warm memory', 'warm off', 'memory'], 'the second round starts with the next instance')
  for (const round of rounds) t.same(round, { off: 100, memory: 90 })
  t.equal(accessFigures('test', rounds).medianRatio.memory, 0.9)
  await t.rejects(measureAccessRounds('test', instances, 1, { warm: async () => {}, measure: async (_, s) => ({ ...result(1, s), non200: 1 }) }), /1 non-200/, 'a failed response stops the benchmark')
})
