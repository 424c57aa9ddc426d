// Whether a database failure means the server cannot be reached (down,
// restarting, refusing connections), as opposed to a bad query. Requests
// answer such failures 503 (GW_ERR_DATABASE_UNAVAILABLE), background work
// retries them.

// SQLSTATE: connection exceptions (class 08); admin_shutdown, crash_shutdown,
// cannot_connect_now (57P01-03: a restart or a server still starting);
// too_many_connections; disk_full (53100: the server answers, but cannot
// write until space is freed, nor sort or hash past work_mem).
const UNAVAILABLE_SQLSTATES = /^(08...|57P0[123]|53300|53100)$/
const UNAVAILABLE_SYSTEM_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])

export function isDatabaseUnavailable (err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.test(code) || UNAVAILABLE_SYSTEM_CODES.has(code))) return true
  // knex: no pooled connection in time (the pool could not open one).
  if ((err as { name?: unknown } | null)?.name === 'KnexTimeoutError') return true
  // pg says these without a code: the server went away mid-query, or the client had already lost it.
  return /Connection terminated|connection error and is not queryable/.test((err as Error | null)?.message ?? '')
}
