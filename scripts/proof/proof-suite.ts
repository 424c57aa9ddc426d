// The frame of every proof suite (npm run fuzz, faults, soak): knobs read
// first (a bad one exits 2), setup (a failure exits 2), the run (0 pass, 1
// fail), and the cleanups always, on Ctrl-C and SIGTERM too.
import { createCleanups, type Cleanups } from './proof-gateway.ts'

export const EXIT_FAILED = 1
export const EXIT_SETUP_FAILED = 2
const EXIT_INTERRUPTED = 130

export type ProofSuite<Settings, Setup> = {
  name: string
  readSettings (): Settings
  setUp (settings: Settings, cleanups: Cleanups): Promise<Setup>
  /** The exit code: 0 when every verdict passed, EXIT_FAILED otherwise. */
  run (settings: Settings, setup: Setup): Promise<number>
}

export async function runProofSuite<Settings, Setup> (suite: ProofSuite<Settings, Setup>): Promise<number> {
  let settings: Settings
  try {
    settings = suite.readSettings()
  } catch (err) {
    console.error((err as Error).message)
    return EXIT_SETUP_FAILED
  }
  const cleanups = createCleanups()
  const interrupt = (): void => { cleanups.run().then(() => process.exit(EXIT_INTERRUPTED), () => process.exit(EXIT_INTERRUPTED)) }
  process.once('SIGINT', interrupt)
  process.once('SIGTERM', interrupt)
  try {
    let setup: Setup
    try {
      setup = await suite.setUp(settings, cleanups)
    } catch (err) {
      console.error(`${suite.name}: setup failed: ${(err as Error).stack ?? String(err)}`)
      return EXIT_SETUP_FAILED
    }
    return await suite.run(settings, setup)
  } finally {
    await cleanups.run()
  }
}
