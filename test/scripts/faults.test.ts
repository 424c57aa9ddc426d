// npm run faults' own command line: an unknown scenario is refused before
// anything starts. Its scenarios run on a tiny chain in *.scenario.ts files
// (test/scripts/faults.scenario.ts, test/scripts/faults/), outside npm test:
// npm run test:scenarios runs them.
import t from 'tap'
import { execa } from 'execa'

const REPO_ROOT = new URL('../../', import.meta.url).pathname

t.test('npm run faults refuses an unknown scenario with exit code 2', async (t) => {
  const run = await execa(process.execPath, ['--import', 'tsx', 'scripts/faults.ts'], { cwd: REPO_ROOT, reject: false, env: { FAULTS_ONLY: 'geth-kill,meteor' } })
  t.equal(run.exitCode, 2)
  t.match(String(run.stderr), /FAULTS_ONLY names no scenario: meteor/)
})
