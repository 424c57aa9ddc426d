// What a running gateway says about itself over HTTP: its /health and whether
// it serves GraphQL right now (which may differ from DATA_DIR/config.json until
// it is restarted).
const PROBE_TIMEOUT_MS = 5000

export type HealthBody = {
  status: string
  geth: { head: number | null, head_age_s: number | null, restarts: number }
  indexer?: { role: string, head: number | null, lag_blocks: number | null }
}

export async function fetchHealth (gatewayUrl: string): Promise<HealthBody | undefined> {
  try {
    const response = await fetch(`${gatewayUrl}/health`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
    return await response.json() as HealthBody
  } catch {
    return undefined
  }
}

/** true or false as the gateway serves it now; undefined when it did not answer. */
export async function probeGraphql (gatewayUrl: string): Promise<boolean | undefined> {
  try {
    const response = await fetch(`${gatewayUrl}/api/v2/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS)
    })
    await response.arrayBuffer()
    return response.status === 200 ? true : response.status === 404 ? false : undefined
  } catch {
    return undefined
  }
}
