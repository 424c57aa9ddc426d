// Geth's JSON log lines become structured log records: its own chatter at
// debug, its errors at warn (they matter to an operator but are Geth's, not ours).
import type { Logger } from '../core/logger.ts'

type GethLogLine = { t?: string, lvl?: string, level?: string, msg?: string, [key: string]: unknown }

export function forwardGethLogLine (log: Logger, line: string): void {
  if (line.trim() === '') return
  let record: GethLogLine
  try {
    record = JSON.parse(line) as GethLogLine
  } catch {
    // Panics and Go runtime output are not JSON.
    log.warn({ line }, 'geth output')
    return
  }
  const { t: _t, lvl, level, msg, time: _time, ...fields } = record
  const gethLevel = String(lvl ?? level ?? 'info').toLowerCase()
  const message = msg ?? 'geth'
  if (gethLevel.startsWith('err') || gethLevel.startsWith('crit')) log.warn({ geth: fields, geth_level: gethLevel }, message)
  else log.debug({ geth: fields, geth_level: gethLevel }, message)
}
