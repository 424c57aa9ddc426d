// The SQL statements a piece of work sends, through knex or prepared: every
// one passes pg.Client's query (a pooled connection's session setup, sent once
// when it opens, is not counted).
import pg from 'pg'
import { PREPARED_SESSION_SETUP } from '../../core/db/index.ts'

export async function captureStatements<T> (run: () => Promise<T>): Promise<{ result: T, texts: string[] }> {
  const texts: string[] = []
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }
  const original = prototype.query
  prototype.query = function (this: unknown, ...args: unknown[]) {
    const config = args[0] as string | { text: string }
    if (config !== PREPARED_SESSION_SETUP) texts.push(typeof config === 'string' ? config : config.text)
    return original.apply(this, args)
  }
  try {
    return { result: await run(), texts }
  } finally {
    prototype.query = original
  }
}
