// `npm run ops -- graphql on|off`: the instance's GraphQL switch, kept in
// DATA_DIR/config.json. Needs neither Geth nor the database; the gateway reads
// the file at start-up, so a running one needs a restart to apply it, which
// this says after asking the running gateway what it serves now.
import { loadConfig, type Config } from '../../core/config.ts'
import { writeConfigSetting } from '../../core/config-file.ts'
import { readEndpoints } from '../../core/endpoints.ts'
import { probeGraphql } from './gateway-probe.ts'

export async function runGraphqlSwitch (config: Config, enabled: boolean, out: (line: string) => void): Promise<number> {
  const file = await writeConfigSetting(config.dataDir, 'GRAPHQL_ENABLED', enabled)
  const state = enabled ? 'on' : 'off'
  // The environment wins over the file: say so rather than let the switch look ignored.
  const effective = loadConfig().graphql.enabled
  if (effective !== enabled) {
    out(`GraphQL ${state} in ${file}`)
    out(`warning: GRAPHQL_ENABLED in the environment overrides ${file}; unset it for the switch to take effect`)
    return 0
  }
  const gateway = await readEndpoints(config.dataDir)
  const live = gateway?.gateway_url === undefined ? undefined : await probeGraphql(gateway.gateway_url)
  if (gateway === undefined) out(`GraphQL ${state} in ${file}; no gateway runs on ${config.dataDir}: it applies at the next start`)
  else if (live === enabled) out(`GraphQL ${state} in ${file}; the running gateway (pid ${gateway.pid}) already serves it ${state}: no restart needed`)
  else out(`GraphQL ${state} in ${file}; restart needed: the running gateway (pid ${gateway.pid}) ${live === undefined ? 'applies it when restarted' : `serves it ${live ? 'on' : 'off'} until restarted`}`)
  return 0
}
