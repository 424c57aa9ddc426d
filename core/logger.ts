import pino, { type LogFn } from 'pino'

/** The logger shape core code needs: pino's, and Fastify's child loggers fit it. */
export interface Logger {
  level: string
  fatal: LogFn
  error: LogFn
  warn: LogFn
  info: LogFn
  debug: LogFn
  trace: LogFn
  child (bindings: Record<string, unknown>): Logger
}

/** Structured JSON logs on stdout; child loggers carry the component name. */
export function createLogger ({ level }: { level: string }): pino.Logger {
  return pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime })
}
