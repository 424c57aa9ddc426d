// The benchmark's logger: the gateway's (warnings and errors on stdout), and
// the last warning kept, so that a run that stalls can say why.
import pino from 'pino'
import { BENCH_LOG_LEVEL } from './chain-config.ts'

const PINO_WARN = 40

export type BenchLogger = { log: pino.Logger, lastWarning (): string | undefined }

export function createBenchLogger (): BenchLogger {
  let last: string | undefined
  const log = pino({
    level: BENCH_LOG_LEVEL,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: {
      logMethod (args, method, level) {
        if (level >= PINO_WARN) last = args.map((a) => typeof a === 'string' ? a : JSON.stringify(a)).join(' ')
        method.apply(this, args)
      }
    }
  })
  return { log, lastWarning: () => last }
}
