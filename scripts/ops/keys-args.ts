// `keys create|list|revoke|rotate`: the API key commands' own options.
import { OpsUsageError } from '../../core/errors.ts'
import { API_KEY_TIERS, type ApiKeyTier } from '../../core/api-keys/store.ts'

export type KeysCommand =
  | { name: 'keys', action: 'create', label: string, tier: ApiKeyTier, limitPerMin: number | undefined }
  | { name: 'keys', action: 'list', json: boolean }
  | { name: 'keys', action: 'revoke', ref: string }
  | { name: 'keys', action: 'rotate', ref: string, graceSeconds: number }

type KeysValues = { label?: string, tier?: string, limit?: string, grace?: string, from?: string, to?: string, json?: boolean }

const MAX_GRACE_SECONDS = 30 * 24 * 3600

function positiveInteger (option: string, value: string, max = 1_000_000_000): number {
  if (!/^\d+$/.test(value) || Number(value) > max) throw new OpsUsageError(`${option} wants a whole number up to ${max}, got ${JSON.stringify(value)}`)
  return Number(value)
}

function refuseOptions (action: string, values: KeysValues, allowed: Array<keyof KeysValues>): void {
  for (const [option, value] of Object.entries(values)) {
    if (value !== undefined && !allowed.includes(option as keyof KeysValues)) throw new OpsUsageError(`keys ${action} takes no --${option}`)
  }
}

export function parseKeysArgs (rest: string[], values: KeysValues): KeysCommand {
  const [action, ref, ...extra] = rest
  if (extra.length > 0) throw new OpsUsageError(`keys ${action}: unexpected ${extra.join(' ')}`)
  switch (action) {
    case 'create': {
      refuseOptions(action, values, ['label', 'tier', 'limit'])
      if (ref !== undefined) throw new OpsUsageError('keys create takes --label, not a positional argument')
      if (values.label === undefined || values.label.trim() === '') throw new OpsUsageError('keys create needs --label L')
      const tier = values.tier ?? 'premium'
      if (!(API_KEY_TIERS as readonly string[]).includes(tier)) throw new OpsUsageError(`--tier is one of ${API_KEY_TIERS.join(', ')}, got ${JSON.stringify(tier)}`)
      const limitPerMin = values.limit === undefined ? undefined : positiveInteger('--limit', values.limit)
      if (limitPerMin === 0) throw new OpsUsageError('--limit must be 1 or more')
      return { name: 'keys', action, label: values.label, tier: tier as ApiKeyTier, limitPerMin }
    }
    case 'list':
      refuseOptions(action, values, ['json'])
      if (ref !== undefined) throw new OpsUsageError('keys list takes no argument')
      return { name: 'keys', action, json: values.json === true }
    case 'revoke':
    case 'rotate':
      refuseOptions(action, values, action === 'rotate' ? ['grace'] : [])
      if (ref === undefined || ref === '') throw new OpsUsageError(`keys ${action} needs a key id or label`)
      return action === 'revoke'
        ? { name: 'keys', action, ref }
        : { name: 'keys', action, ref, graceSeconds: values.grace === undefined ? 0 : positiveInteger('--grace', values.grace, MAX_GRACE_SECONDS) }
    default:
      throw new OpsUsageError(`keys takes create, list, revoke or rotate, got ${JSON.stringify(action ?? '')}`)
  }
}
