// Who may read /metrics: the figures say how busy the instance is and which
// methods are used, which is the operator's business. Loopback always (a
// Prometheus beside the gateway), the addresses or subnets METRICS_ALLOW lists,
// or anyone presenting ADMIN_TOKEN as a bearer token.
import { createAddressMatcher } from '../net/subnets.ts'
import { createBearerTokenCheck } from '../net/bearer-token.ts'

export type MetricsAccess = { isAllowed (ip: string, authorization: string | undefined): boolean }

export type MetricsAccessOptions = { allow: readonly string[], adminToken: string | undefined }

/** Throws on an entry that is neither an address nor address/prefix (config checks this at boot). */
export function createMetricsAccess ({ allow, adminToken }: MetricsAccessOptions): MetricsAccess {
  const isListed = createAddressMatcher(['127.0.0.0/8', '::1', ...allow])
  const isAdmin = adminToken === undefined ? () => false : createBearerTokenCheck(adminToken)
  return {
    isAllowed: (ip, authorization) => isListed(ip) || isAdmin(authorization)
  }
}
