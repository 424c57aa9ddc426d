// Retry by class, never by message: the node or the database may come back;
// a bug or a bad configuration will not.
import { FatalError, RetryableError } from '../errors.ts'
import { RpcResponseError } from '../rpc/client.ts'
import { isDatabaseUnavailable } from '../db/unavailable.ts'

// PostgreSQL SQLSTATE classes that pass besides an unreachable server: insufficient
// resources, operator intervention (restart, shutdown), serialization failures.
const RETRYABLE_SQLSTATE_CLASSES = new Set(['53', '57', '40'])

export function isRetryable (err: unknown): boolean {
  if (err instanceof FatalError) return false
  if (err instanceof RetryableError) return true
  // The node refused a call it normally answers (a trace timing out, a block it just dropped).
  if (err instanceof RpcResponseError) return true
  if (isDatabaseUnavailable(err)) return true
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && RETRYABLE_SQLSTATE_CLASSES.has(code.slice(0, 2))
}
