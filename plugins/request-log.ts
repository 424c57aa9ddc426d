// request.log: the app's logger with the request id bound (reqId), made on
// first use. A pino child per request costs as much as the proxy's own work on
// a cheap call (it serialises its bindings when made), and most requests log
// nothing: this stand-in is one small object, and the child is made only when
// a line is written at an enabled level.
import type { FastifyBaseLogger } from 'fastify'
import type pino from 'pino'

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const

type Bindings = pino.Bindings
type ChildOptions = pino.ChildLoggerOptions

class RequestLogger {
  child_: FastifyBaseLogger | undefined = undefined
  constructor (readonly parent: pino.Logger, readonly bindings: Bindings, readonly options: ChildOptions) {}

  log (): FastifyBaseLogger {
    this.child_ ??= this.parent.child(this.bindings, this.options) as FastifyBaseLogger
    return this.child_
  }

  get level (): string { return this.child_?.level ?? this.options.level ?? this.parent.level }
  set level (level: string) { this.log().level = level }

  child (bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.log().child(bindings, options)
  }

  silent (): void {}
}

interface RequestLogger extends Record<(typeof LEVELS)[number], pino.LogFn> {}

/** A line at a level the app's logger leaves out is dropped before any child is made (a route's own level makes one). */
function writer (level: (typeof LEVELS)[number]): pino.LogFn {
  return function (this: RequestLogger, ...args: unknown[]) {
    if (this.child_ === undefined && this.options.level === undefined && !this.parent.isLevelEnabled(level)) return
    ;(this.log()[level] as (...line: unknown[]) => void)(...args)
  } as pino.LogFn
}
for (const level of LEVELS) RequestLogger.prototype[level] = writer(level)

/** Fastify's childLoggerFactory: request.log binds the request id once, when first written to. */
export function lazyRequestLogger (parent: FastifyBaseLogger, bindings: Bindings, options: ChildOptions): FastifyBaseLogger {
  return new RequestLogger(parent as pino.Logger, bindings, options) as unknown as FastifyBaseLogger
}
