// .taprc's `after` step: removes the fixture templates of this tap run (see
// fixture-template.ts), and those of runs whose runner is gone (killed before
// its own `after` step ran).
import { readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { adminQuery } from '../../core/db/scratch.ts'
import { TEMPLATE_DATABASE_PREFIX, TEMPLATE_DIR_PREFIX, processRunId } from './fixture-run.ts'

const thisRun = processRunId(process.ppid)
/** A run is over when its runner is this one (about to finish) or no longer the process that started it. */
const isOver = (runId: string): boolean => runId === thisRun || processRunId(Number(runId.split('_')[0])) !== runId

for (const entry of await readdir(tmpdir())) {
  if (entry.startsWith(TEMPLATE_DIR_PREFIX) && isOver(entry.slice(TEMPLATE_DIR_PREFIX.length))) {
    await rm(join(tmpdir(), entry), { recursive: true, force: true })
  }
}
const serverUrl = process.env.DATABASE_URL
if (serverUrl !== undefined && serverUrl !== '') {
  // A server that is gone has no templates left to drop: the run's result stands.
  const templates = await adminQuery<{ datname: string }>(serverUrl, 'select datname from pg_database where datname like $1', [`${TEMPLATE_DATABASE_PREFIX}%`])
    .catch((err: Error) => { process.stderr.write(`fixture templates: ${err.message}\n`); return [] })
  for (const { datname } of templates) {
    // tg_fixture_<name>_<pid>_<start time>
    const runId = datname.split('_').slice(-2).join('_')
    if (isOver(runId)) await adminQuery(serverUrl, `drop database if exists ${datname} with (force)`)
  }
}
