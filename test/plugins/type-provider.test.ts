// The JSON-schema type provider is app-wide (issue 37): buildApp sets it, each
// route's request types come from its schema (plugins/app.ts), and no route
// restates its schema as a generic (`app.post<{ Body: ... }>`), which could
// drift from what the schema validates. Read from the code.
import t from 'tap'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const PLUGINS = fileURLToPath(new URL('../../plugins/', import.meta.url))
const ROUTE_GENERIC = /\.(?:get|post|put|patch|delete|head|options|all|route)<\s*\{/g

t.test('the route-generic pattern finds a restated schema, not a typed call', async (t) => {
  t.equal("app.post<{ Body: { address: string } }>('/x', opts, handler)".match(ROUTE_GENERIC)?.length, 1)
  t.equal("app.post('/x', { schema }, handler); map.get<string>(key)".match(ROUTE_GENERIC), null)
})

t.test('no plugin route restates its schema as a generic', async (t) => {
  const entries = await readdir(PLUGINS, { withFileTypes: true, recursive: true })
  const restated: string[] = []
  for (const entry of entries.filter((e) => e.isFile() && e.name.endsWith('.ts'))) {
    const path = join(entry.parentPath, entry.name)
    const lines = (await readFile(path, 'utf8')).split('\n')
    lines.forEach((line, i) => { if (ROUTE_GENERIC.test(line)) restated.push(`${relative(PLUGINS, path)}:${i + 1}`); ROUTE_GENERIC.lastIndex = 0 })
  }
  t.same(restated, [])
})

t.test('buildApp sets the type provider on the whole app', async (t) => {
  const index = await readFile(join(PLUGINS, 'index.ts'), 'utf8')
  t.match(index, /\}\)\.withTypeProvider<JsonSchemaToTsProvider>\(\)/)
})
