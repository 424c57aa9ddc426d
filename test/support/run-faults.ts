// npm run faults as the fault tests run it: on a tiny chain (20 blocks, 100
// transactions), one process per call. The scenarios are spread over several
// files (test/scripts/faults.scenario.ts, test/scripts/faults/*.scenario.ts,
// run by npm run test:scenarios) so that they run side by side.
import { execa } from 'execa'

const REPO_ROOT = new URL('../../', import.meta.url).pathname

/** npm run faults on a tiny chain with `env`: its exit code and standard output. */
export async function runFaults (env: Record<string, string>): Promise<{ exitCode: number | undefined, out: string, all: string }> {
  const run = await execa(process.execPath, ['--import', 'tsx', 'scripts/faults.ts'], {
    cwd: REPO_ROOT,
    reject: false,
    env: { FAULTS_CHAIN_BLOCKS: '20', FAULTS_CHAIN_TRANSACTIONS: '100', FAULTS_TIMEOUT_S: '240', ...env }
  })
  return { exitCode: run.exitCode, out: String(run.stdout), all: String(run.stdout) + String(run.stderr) }
}
