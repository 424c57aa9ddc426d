// npm run soak's own command line: a bad knob is refused before anything
// starts. The run itself, for a few seconds on a tiny chain, is in
// soak.scenario.ts, outside npm test: npm run test:scenarios runs it.
import t from 'tap'
import { execa } from 'execa'

const REPO_ROOT = new URL('../../', import.meta.url).pathname

t.test('npm run soak refuses a bad knob with exit code 2', async (t) => {
  const run = await execa(process.execPath, ['--import', 'tsx', 'scripts/soak.ts'], { cwd: REPO_ROOT, reject: false, env: { SOAK_DURATION_S: '0' } })
  t.equal(run.exitCode, 2)
  t.match(String(run.stderr), /SOAK_DURATION_S must be a whole number >= 1, not 0/)
})
