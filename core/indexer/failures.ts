// Retry by class, never by message: the node or the database may come back;
// a bug or a bad configuration will not.
import { FatalError, RetryableError } from '../errors.ts'
import { RpcResponseError } from '../rpc/client.ts'

// PostgreSQL SQLSTATE classes that pass: connection exceptions, insufficient
// resources, operator intervention (restart, shutdown), serialization failures.
const RETRYABLE_SQLSTATE_CLASSES = new Set(['08', '53', '57', '40'])
const RETRYABLE_SYSTEM_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND'])

export function isRetryable (err: unknown): boolean {
  if (err instanceof FatalError) return false
  if (err instanceof RetryableError) return true
  // The node refused a call it normally answers (a trace timing out, a block it just dropped).
  if (err instanceof RpcResponseError) return true
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return RETRYABLE_SQLSTATE_CLASSES.has(code.slice(0, 2))
  if (typeof code === 'string' && RETRYABLE_SYSTEM_CODES.has(code)) return true
  const name = (err as { name?: unknown } | null)?.name
  // knex: no pooled connection in time; pg: the server went away mid-query.
  return name === 'KnexTimeoutError' || /Connection terminated/.test((err as Error)?.message ?? '')
}
