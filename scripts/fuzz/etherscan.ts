// The Etherscan-style /api: every module and action the gateway serves
// (plugins/etherscan/actions.ts, so a new action is fuzzed at once) and
// unknown ones, with hostile, missing or repeated parameters.
import fc from 'fast-check'
import { ETHERSCAN_MODULES } from '../../plugins/etherscan/actions.ts'
import { describe, type FuzzRequest } from './http.ts'
import { hostileString, hugeNumber, plausible, wellFormed, type Known } from './hostile.ts'
import { checkEtherscan } from './shapes.ts'
import type { FuzzTarget } from './run.ts'

export function createEtherscanTarget (known: Known): FuzzTarget {
  const actions = Object.entries(ETHERSCAN_MODULES).flatMap(([module, byName]) =>
    Object.entries(byName).map(([action, spec]) => ({ module, action, params: Object.keys(spec.params) })))
  const value = fc.oneof(plausible(known), hostileString(known), hugeNumber)
  const served = fc.constantFrom(...actions).chain(({ module, action, params }) => fc.tuple(
    fc.constant(module), fc.constant(action),
    fc.array(fc.tuple(fc.constantFrom(...params, 'apikey', 'page', 'offset', 'sort'), value), { maxLength: 4 })))
  const unknown = fc.tuple(fc.oneof(value, fc.constantFrom('account', 'contract', 'logs', 'proxy', 'stats')), value, fc.array(fc.tuple(value, value), { maxLength: 3 }))
  const request = fc.tuple(fc.oneof({ weight: 4, arbitrary: served }, { weight: 1, arbitrary: unknown }), fc.boolean())
    .map(([[module, action, params], dropModule]): FuzzRequest => {
      const pairs = [...(dropModule ? [] : [['module', module]]), ['action', action], ...params]
      return describe({ method: 'GET', path: `/api?${pairs.map(([k, v]) => `${encodeURIComponent(wellFormed(k!))}=${encodeURIComponent(wellFormed(v!))}`).join('&')}` })
    })
  return { name: 'Etherscan /api', requests: request, check: checkEtherscan }
}
