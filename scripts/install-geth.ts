// `npm run geth:install` (and `npm test`'s pretest): find or build Geth v1.13.15
// once, into the cache, so the first test or start does not wait for it.
import { loadConfig } from '../core/config.ts'
import { createLogger } from '../core/logger.ts'
import { findGeth } from '../geth/install.ts'

const config = loadConfig()
const log = createLogger({ level: config.logLevel })
try {
  const bin = await findGeth({ bin: config.geth.bin, cacheDir: config.geth.cacheDir, log, env: config.childEnv })
  log.info({ bin }, 'geth ready')
} catch (err) {
  log.fatal((err as Error).message)
  process.exitCode = 1
}
