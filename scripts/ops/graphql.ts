// `npm run ops -- graphql on|off`: the instance's GraphQL switch, kept in
// DATA_DIR/config.json. Needs neither Geth nor the database; the gateway reads
// the file at start-up, so a restart applies it.
import { loadConfig, type Config } from '../../core/config.ts'
import { writeConfigSetting } from '../../core/config-file.ts'

export async function runGraphqlSwitch (config: Config, enabled: boolean, out: (line: string) => void): Promise<number> {
  const file = await writeConfigSetting(config.dataDir, 'GRAPHQL_ENABLED', enabled)
  out(`GraphQL ${enabled ? 'on' : 'off'} in ${file}; restart the gateway to apply it`)
  // The environment wins over the file: say so rather than let the switch look ignored.
  if (loadConfig().graphql.enabled !== enabled) {
    out(`warning: GRAPHQL_ENABLED in the environment overrides ${file}; unset it for the switch to take effect`)
  }
  return 0
}
