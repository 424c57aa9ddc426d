// Names of the fixture templates' run (see fixture-template.ts), shared with
// the `after` step that removes them (drop-fixture-templates.ts).
import { readFileSync } from 'node:fs'

export const TEMPLATE_DIR_PREFIX = 'tg-fixtures-'
export const TEMPLATE_DATABASE_PREFIX = 'tg_fixture_'

/** `<pid>_<start time>` of a process: its pid alone may be reused later. */
export function processRunId (pid: number): string | undefined {
  try {
    // Field 22 of /proc/<pid>/stat (after the parenthesised name): start time in clock ticks since boot.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return `${pid}_${fields[19]}`
  } catch {
    return undefined
  }
}
