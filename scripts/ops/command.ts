import type { Logger } from '../../core/logger.ts'
import type { OpsContext } from './context.ts'

/** What every ops command gets: the node and database, a logger (stderr), its output (stdout) and Ctrl-C. */
export type OpsCommandContext = {
  ops: OpsContext
  log: Logger
  out: (line: string) => void
  signal: AbortSignal
}
