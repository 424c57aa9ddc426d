// The access benchmark's rounds: slices taken in turns, each instance's figure
// its requests over its seconds, each round starting with the next instance.
import t from 'tap'
import { ACCESS_ROUNDS, ACCESS_SLICES, accessFigures, measureAccessRounds, type AccessInstance } from '../../../scripts/bench/access.ts'

t.test('each round warms every instance, then measures them in turns, slice by slice', async (t) => {
  const instances: AccessInstance[] = [{ variant: 'off', url: 'a' }, { variant: 'memory', url: 'b' }]
  const calls: string[] = []
  const errors = console.error
  console.error = () => {}
  t.teardown(() => { console.error = errors })
  const rounds = await measureAccessRounds('test', instances, 20, {
    warm: async (i) => { calls.push(`warm ${i.variant}`) },
    // 'off' answers 100 a second, 'memory' 90: the drift of the slice number weighs on both alike.
    measure: async (i, sliceS) => {
      calls.push(`${i.variant} ${sliceS}`)
      return { requests: (i.variant === 'off' ? 100 : 90) * sliceS, seconds: sliceS }
    }
  })
  t.equal(rounds.length, ACCESS_ROUNDS)
  const perRound = 2 + 2 * ACCESS_SLICES
  const sliceS = Math.max(1, Math.round(20 / ACCESS_SLICES))
  t.same(calls.slice(0, perRound), ['warm off', 'warm memory', ...Array.from({ length: ACCESS_SLICES }, () => [`off ${sliceS}`, `memory ${sliceS}`]).flat()])
  t.same(calls.slice(perRound, perRound + 3), ['warm memory', 'warm off', `memory ${sliceS}`], 'the second round starts with the next instance')
  for (const round of rounds) t.same(round, { off: 100, memory: 90 })
  t.equal(accessFigures('test', rounds).medianRatio.memory, 0.9)
})
