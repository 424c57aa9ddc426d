import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { readPostmasterPid, startCpuMeter } from '../../../scripts/lib/cpu.ts'

test('the postmaster\'s pid is the first line of its lock file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tg-cpu-'))
  t.teardown(async () => await rm(dir, { recursive: true, force: true }))
  t.equal(await readPostmasterPid(dir), undefined, 'no server there')
  await writeFile(join(dir, 'postmaster.pid'), '4242\n/var/lib/postgres\n1763800000\n5432\n')
  t.equal(await readPostmasterPid(dir), 4242)
  await writeFile(join(dir, 'postmaster.pid'), 'not a pid\n')
  t.equal(await readPostmasterPid(dir), undefined, 'a damaged lock file')
})

test('the meter counts a server process tree\'s CPU over the wall time it ran', async (t) => {
  // This process stands in for a postmaster: its own CPU time is what is read.
  const stop = await startCpuMeter(undefined, process.pid)
  const until = performance.now() + 300
  while (performance.now() < until) Math.sqrt(Math.random())
  const cpu = await stop()
  t.ok(cpu.wallS >= 0.3 && cpu.wallS < 5, `wall ${cpu.wallS} s`)
  // Any share: tests run side by side on two cores, so how much this one got varies.
  t.ok(cpu.postgresCores !== undefined && cpu.postgresCores !== null && cpu.postgresCores > 0, `busy: ${cpu.postgresCores} cores`)
})
