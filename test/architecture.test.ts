// docs/architecture.md says what the code is (issue 37): its table of plugins
// lists every plugin plugins/index.ts registers, in registration order, each
// under the name its fastify-plugin metadata gives (the folder's name), and
// every path it names in backquotes exists. Read from the code, so a plugin
// added, moved or removed fails here until the document follows.
import t from 'tap'
import { access, readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { dirname, join, relative, resolve } from 'node:path'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const read = async (path: string): Promise<string> => await readFile(join(ROOT, path), 'utf8')

/** The plugin folders plugins/index.ts registers, in order: `app.register(x` with x imported from './<folder>/...', or a dynamic import of one. */
export function registeredPlugins (source: string): string[] {
  const imported = new Map([...source.matchAll(/^import (\w+) from '\.\/([\w-]+)\/[\w./-]+'/gm)].map((m) => [m[1]!, m[2]!]))
  const order: string[] = []
  for (const line of source.split('\n')) {
    const folders = new Set<string>()
    for (const m of line.matchAll(/\bapp\.register\((\w+)/g)) if (imported.has(m[1]!)) folders.add(imported.get(m[1]!)!)
    for (const m of line.matchAll(/\bapp\.register\(\(await import\('\.\/([\w-]+)\//g)) folders.add(m[1]!)
    // One line may register either of two modules of one plugin (graphql or its stand-in when off).
    order.push(...folders)
  }
  return order
}

/** The first column of the table under "## Plugins, in boot order". */
export function documentedPlugins (doc: string): string[] {
  const section = doc.split(/^## Plugins, in boot order$/m)[1]?.split(/^## /m)[0] ?? ''
  return [...section.matchAll(/^\| `([\w-]+)` \|/gm)].map((m) => m[1]!)
}

t.test('registeredPlugins() reads static and dynamic registrations in order, one per line', async (t) => {
  const source = [
    "import a from './alpha/index.ts'",
    "import aOff from './alpha/disabled.ts'",
    "import b from './beta/index.ts'",
    "import { helper } from '../core/helper.ts'",
    'await app.register(b, options)',
    "if (on) await app.register((await import('./alpha/index.ts')).default)",
    'else await app.register(aOff)',
    'await app.register(x)'
  ].join('\n')
  t.same(registeredPlugins(source), ['beta', 'alpha', 'alpha'])
})

t.test('docs/architecture.md lists the plugins plugins/index.ts registers, in its order', async (t) => {
  const source = await read('plugins/index.ts')
  // An if/else on two lines registers one plugin: counted once.
  const registered = registeredPlugins(source).filter((name, i, all) => all[i - 1] !== name)
  t.ok(registered.length > 20, `${registered.length} plugins registered`)
  t.same(documentedPlugins(await read('docs/architecture.md')), registered)
})

t.test('each registered plugin is named, in its fastify-plugin metadata, for its folder', async (t) => {
  for (const folder of new Set(registeredPlugins(await read('plugins/index.ts')))) {
    const plugin = await read(`plugins/${folder}/index.ts`)
    t.match(plugin, new RegExp(`fp\\(\\w+, \\{ name: '${folder}'`), `plugins/${folder}/index.ts is fp(..., { name: '${folder}' })`)
  }
})

t.test('every file docs/architecture.md names in backquotes exists', async (t) => {
  const doc = await read('docs/architecture.md')
  const paths = new Set([...doc.matchAll(/`((?:core|geth|plugins|scripts|test)\/[\w./-]+)`/g)].map((m) => m[1]!))
  t.ok(paths.size > 20, `${paths.size} paths named`)
  for (const path of paths) {
    await t.resolves(access(join(ROOT, path)), path)
  }
})

/** Files of a folder under plugins/ (its subfolders too), from the repository root. */
async function pluginFiles (): Promise<string[]> {
  const entries = await readdir(join(ROOT, 'plugins'), { withFileTypes: true, recursive: true })
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts') && e.parentPath !== join(ROOT, 'plugins'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
}

/** The plugins/<folder> a path is in. */
const pluginOf = (path: string): string => path.split('/')[1]!

/** Whether a file registers routes: `app.get('/...'`, `scope.route({`. */
export const registersRoutes = (source: string): boolean => /\.(?:get|post|put|patch|delete|all|route)\(\s*(?:['"`]\/|\{)/.test(source)

t.test('registersRoutes() tells a route file from a presenter', async (t) => {
  t.ok(registersRoutes("app.get('/blocks', { schema }, handler)"))
  t.ok(registersRoutes('scope.route({ method: \'GET\' })'))
  t.notOk(registersRoutes('const row = names.get(address)'))
})

// The shapes REST, the Phoenix socket and the Etherscan API share live in
// plugins/present/; a plugin that imported another's route file would load
// and depend on routes it never registers.
t.test('no plugin imports another plugin\'s route file, and plugins/present/ imports no plugin', async (t) => {
  const files = await pluginFiles()
  t.ok(files.some((f) => f.startsWith('plugins/present/')), 'plugins/present/ holds the presenters')
  for (const file of files) {
    const source = await readFile(join(ROOT, file), 'utf8')
    for (const m of source.matchAll(/\bfrom\s*'(\.[^']+)'/g)) {
      const target = relative(ROOT, resolve(dirname(join(ROOT, file)), m[1]!))
      if (!target.startsWith('plugins/') || target.split('/').length < 3 || pluginOf(target) === pluginOf(file)) continue
      if (pluginOf(file) === 'present') t.fail(`${file} imports ${target}: presenters import core/ only`)
      else if (registersRoutes(await readFile(join(ROOT, target), 'utf8'))) t.fail(`${file} imports ${target}, a route file of another plugin`)
    }
  }
})
