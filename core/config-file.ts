// DATA_DIR/config.json: the instance's own settings, so an operator can switch
// a feature for one instance (`npm run ops -- graphql off`) without editing its
// service definition. It holds variables by their environment names; the
// environment overrides it. core/config.ts reads it; only ops writes it.
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ConfigInvalidError } from './errors.ts'

export const CONFIG_FILE = 'config.json'

export type ConfigFileValue = string | number | boolean

export const configFilePath = (dataDir: string): string => join(dataDir, CONFIG_FILE)

/**
 * The file's settings as strings, as the environment would give them; {} when
 * there is no file. A file that is not a JSON object of known variables with
 * scalar values stops start-up, naming the file and the key.
 */
export function readConfigFile (dataDir: string, known: ReadonlySet<string>): Record<string, string> {
  const file = configFilePath(dataDir)
  if (!existsSync(file)) return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new ConfigInvalidError(`${file} is not JSON: ${(err as Error).message}`)
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigInvalidError(`${file} must hold a JSON object`)
  const settings: Record<string, string> = {}
  for (const [name, value] of Object.entries(parsed)) {
    if (!known.has(name)) throw new ConfigInvalidError(`${file}: unknown setting ${JSON.stringify(name)}`)
    if (!['string', 'number', 'boolean'].includes(typeof value)) throw new ConfigInvalidError(`${file}: ${name} must be a string, number or boolean`)
    settings[name] = String(value)
  }
  return settings
}

/** Sets one variable in the file, keeping the others; written whole or not at all. */
export async function writeConfigSetting (dataDir: string, name: string, value: ConfigFileValue): Promise<string> {
  const file = configFilePath(dataDir)
  const current = existsSync(file) ? JSON.parse(await readFile(file, 'utf8')) as Record<string, ConfigFileValue> : {}
  await mkdir(dataDir, { recursive: true })
  const temporary = `${file}.${process.pid}.tmp`
  await writeFile(temporary, JSON.stringify({ ...current, [name]: value }, null, 2) + '\n')
  await rename(temporary, file)
  return file
}
