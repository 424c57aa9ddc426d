// No client mistake gets a 500: every GET route of the published OpenAPI
// document, with each path parameter and each query parameter in turn set to
// values a careless or hostile client sends, answers below 500 with a JSON
// body (the health probes' plain `OK` aside), and GraphQL never with an
// internal error.
import t from 'tap'
import { build } from '../../helper.ts'

const { app } = await build(t)

const HOSTILE = [
  '', ' ', '0', '-1', '1.5', '1e309', 'NaN', 'Infinity', '99999999999999999999999999999999', '-99999999999999999999',
  '0x', '0x0', '0xZZ', `0x${'g'.repeat(40)}`, `0x${'0'.repeat(39)}`, `0x${'f'.repeat(41)}`, `0x${'a'.repeat(64)}`, `0x${'a'.repeat(65)}`,
  `0X${'A'.repeat(40)}`, 'null', 'undefined', 'true', '[]', '{}', '%00', '\u0000', "'; drop table blocks; --", '../../etc/passwd',
  '\u{1F600}', 'x'.repeat(5000), 'ERC-20,', 'ERC-721,,ERC-1155', 'asc,desc'
]

type Operation = { parameters?: Array<{ in: string, name: string }> }
const document = (await app.inject({ method: 'GET', url: '/api/v2/openapi' })).json() as { paths: Record<string, { get?: Operation }> }
const routes = Object.entries(document.paths).flatMap(([path, item]) => item.get === undefined ? [] : [{ path, parameters: item.get.parameters ?? [] }])

/** A path's template filled with plausible values, one of them (or none) replaced. */
function fill (path: string, replace?: { name: string, value: string }): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(name === replace?.name ? replace.value : plausible(name)))
}

function plausible (name: string): string {
  if (/hash|address/.test(name)) return `0x${'1'.repeat(name.includes('transaction') ? 64 : 40)}`
  return '1'
}

/** A JSON body without an internal GraphQL error, Blockscout's plain `OK` of a health probe, or a CSV export's header row first. */
function answersWell (response: { statusCode: number, headers: Record<string, unknown>, body: string, json (): any }): boolean {
  if (String(response.headers['content-type']).startsWith('text/plain')) return response.body === 'OK'
  if (response.statusCode === 200 && String(response.headers['content-type']).startsWith('text/csv')) return /^[A-Za-z]+(,[A-Za-z]+)*\r\n/.test(response.body)
  try {
    const body = response.json()
    return !(body?.errors ?? []).some?.((e: { extensions?: { code?: string } }) => e.extensions?.code === 'INTERNAL_SERVER_ERROR')
  } catch {
    return false
  }
}

t.test('every GET route answers hostile parameters below 500, with JSON', async (t) => {
  t.ok(routes.length > 40, `${routes.length} GET routes in the OpenAPI document`)
  let requests = 0
  const failures: string[] = []
  for (const { path, parameters } of routes) {
    const urls = [fill(path)]
    for (const parameter of parameters) {
      for (const value of HOSTILE) {
        urls.push(parameter.in === 'path'
          ? fill(path, { name: parameter.name, value })
          : `${fill(path)}?${new URLSearchParams({ [parameter.name]: value })}`)
      }
    }
    for (const url of urls) {
      const response = await app.inject({ method: 'GET', url })
      requests++
      if (response.statusCode >= 500 || !answersWell(response)) failures.push(`${response.statusCode} ${url.slice(0, 200)}: ${response.body.slice(0, 200)}`)
    }
  }
  t.same(failures, [], `${requests} requests, none answered 500 or without JSON`)
})
