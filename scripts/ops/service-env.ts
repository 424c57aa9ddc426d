// On a VM set up by install-service, the service's settings (DATA_DIR first)
// are in the environment file its unit names, not in the operator's shell.
// Without DATA_DIR, ops takes them from there, so that `status` and the other
// commands work on the service's data directory and database rather than the
// checkout's ./data. Whatever the shell sets wins over the file.
import { readFile } from 'node:fs/promises'
import { DEFAULT_ENV_FILE, DEFAULT_UNIT_FILE } from './install-service.ts'

type Env = Record<string, string | undefined>

export type ServiceEnvironment = {
  env: Env
  /** The environment file read, if any. */
  file: string | undefined
}

export async function withServiceEnvironment (env: Env, { unitFile = DEFAULT_UNIT_FILE, envFile = DEFAULT_ENV_FILE } = {}): Promise<ServiceEnvironment> {
  if (isSet(env.DATA_DIR)) return { env, file: undefined }
  const unit = await readIfExists(unitFile)
  // The unit says where its settings are (install-service --environment-file); without a unit, the default place.
  const file = unit === undefined ? envFile : findEnvironmentFile(unit)
  const text = file === undefined ? undefined : await readIfExists(file)
  if (file === undefined || text === undefined) return { env, file: undefined }
  const merged: Env = { ...env }
  for (const [name, value] of parseEnvironmentFile(text)) if (!isSet(merged[name])) merged[name] = value
  return { env: merged, file }
}

/** An empty value means unset, as core/config.ts reads it. */
function isSet (value: string | undefined): boolean {
  return value !== undefined && value !== ''
}

async function readIfExists (file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    if (code === 'EACCES') {
      // Going on would show the checkout's ./data, which is worse than stopping.
      throw new Error(`cannot read ${file}, which holds the service's settings (DATA_DIR): run ops as root or as the service's user, or set DATA_DIR`)
    }
    throw err
  }
}

/** The last EnvironmentFile= of the unit's [Service] section; a leading "-" (optional file) is dropped. */
export function findEnvironmentFile (unit: string): string | undefined {
  let file: string | undefined
  for (const line of unit.split('\n')) {
    const match = /^\s*EnvironmentFile\s*=\s*-?(.*?)\s*$/.exec(line)
    if (match?.[1] !== undefined && match[1] !== '') file = match[1]
  }
  return file
}

/** systemd's EnvironmentFile= format, as far as install-service writes it: NAME=value lines, # and ; comments, optional quotes. */
export function parseEnvironmentFile (text: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line)
    if (match === null) continue
    let value = match[2]!
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0])) value = value.slice(1, -1)
    pairs.push([match[1]!, value])
  }
  return pairs
}
