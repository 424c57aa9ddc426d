// The SQL statements a piece of work sends, through knex or prepared: every
// one passes pg.Client's query (a pooled connection's session setup, sent once
// when it opens, is not counted).
import pg from 'pg'
import { PREPARED_SESSION_SETUP } from '../../core/db/index.ts'

export type CapturedStatement = { text: string, values: unknown[] }

export async function captureStatements<T> (run: () => Promise<T>): Promise<{ result: T, texts: string[], statements: CapturedStatement[] }> {
  const texts: string[] = []
  const statements: CapturedStatement[] = []
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }
  const original = prototype.query
  prototype.query = function (this: unknown, ...args: unknown[]) {
    const config = args[0] as string | { text: string, values?: unknown[] }
    if (config !== PREPARED_SESSION_SETUP) {
      const text = typeof config === 'string' ? config : config.text
      texts.push(text)
      statements.push({ text, values: (typeof config === 'string' ? args[1] as unknown[] | undefined : config.values) ?? [] })
    }
    return original.apply(this, args)
  }
  try {
    return { result: await run(), texts, statements }
  } finally {
    prototype.query = original
  }
}
