// Plugins declare what they need (issue 37): a plugin that reads another's
// instance decorator (app.verifier, app.accessBudget...) names that plugin in
// its fastify-plugin `dependencies`, so Fastify refuses a build without it,
// and no plugin probes for a decorator to fall back when it is missing (the
// benchmarks register stand-ins instead: scripts/bench/stand-ins.ts). Read
// from the code: each plugin's `declare module 'fastify'` says what it
// decorates, its files say what it reads.
import t from 'tap'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import rest from '../../plugins/rest/index.ts'

const PLUGINS = fileURLToPath(new URL('../../plugins/', import.meta.url))

async function pluginFiles (folder: string): Promise<Array<{ path: string, text: string }>> {
  const entries = await readdir(join(PLUGINS, folder), { withFileTypes: true, recursive: true })
  const files = entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => join(e.parentPath, e.name))
  return await Promise.all(files.map(async (path) => ({ path: relative(PLUGINS, path), text: await readFile(path, 'utf8') })))
}

/** The instance decorators a file declares: the properties of its `interface FastifyInstance { ... }` augmentation. */
export function declaredDecorators (text: string): string[] {
  const block = /^( *)interface FastifyInstance \{\n([\s\S]*?)^\1\}/m.exec(text)
  if (block === null) return []
  const indent = `${block[1]!}  `
  return [...block[2]!.matchAll(new RegExp(`^${indent}(\\w+)\\??:`, 'gm'))].map((m) => m[1]!)
}

/** The plugin names of `fp(fn, { name, dependencies: [...] })` in an index.ts. */
function metadataOf (text: string): { name: string, dependencies: string[] } | undefined {
  const call = /fp\(\w+, \{ name: '([\w-]+)'[^}]*\}\)/.exec(text)
  if (call === null) return undefined
  const dependencies = /dependencies: \[([^\]]*)\]/.exec(call[0])?.[1] ?? ''
  return { name: call[1]!, dependencies: [...dependencies.matchAll(/'([\w-]+)'/g)].map((d) => d[1]!) }
}

t.test('declaredDecorators() reads the instance augmentation only, at its own depth', async (t) => {
  const text = [
    "declare module 'fastify' {",
    '  interface FastifyInstance {',
    '    /** the reader */',
    '    reader: Reader',
    '    maybe?: { inner: number }',
    '  }',
    '  interface FastifyRequest {',
    '    apiKey: string',
    '  }',
    '}'
  ].join('\n')
  t.same(declaredDecorators(text), ['reader', 'maybe'])
})

t.test('a plugin that reads another plugin\'s decorator depends on it, or comes before it in plugins/index.ts', async (t) => {
  const folders = (await readdir(PLUGINS, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name)
  const owner = new Map<string, string>()
  const files = new Map<string, Array<{ path: string, text: string }>>()
  for (const folder of folders) {
    files.set(folder, await pluginFiles(folder))
    for (const file of files.get(folder)!) for (const name of declaredDecorators(file.text)) owner.set(name, folder)
  }
  t.ok(owner.get('verifier') === 'verify' && owner.get('accessBudget') === 'rate-limit', 'decorators found with their plugins')
  const index = await readFile(join(PLUGINS, 'index.ts'), 'utf8')
  const position = (folder: string): number => index.indexOf(`from './${folder}/`)
  for (const folder of folders) {
    const metadata = metadataOf(files.get(folder)!.find((f) => f.path === join(folder, 'index.ts'))?.text ?? '')
    if (metadata === undefined) continue
    for (const { path, text } of files.get(folder)!) {
      for (const [, name] of text.matchAll(/\bapp\.(\w+)\b/g)) {
        const from = owner.get(name!)
        if (from === undefined || from === folder || metadata.dependencies.includes(from)) continue
        // Registered after this plugin because it depends on it (rate-limit on auth): read when a request comes, never probed.
        const byImport = index.match(new RegExp(`^import (\\w+) from './${folder}/index.ts'`, 'm'))?.[1]
        const registeredAt = (ident: string | undefined): number => ident === undefined ? -1 : index.indexOf(`app.register(${ident}`)
        const ownerIdent = index.match(new RegExp(`^import (\\w+) from './${from}/index.ts'`, 'm'))?.[1]
        t.ok(registeredAt(ownerIdent) > registeredAt(byImport) && position(from) >= 0,
          `${path} reads app.${name!} (plugins/${from}) without depending on it`)
      }
    }
  }
})

t.test('no plugin probes for a decorator (hasDecorator) to branch on a missing dependency', async (t) => {
  const folders = (await readdir(PLUGINS, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name)
  const probes: string[] = []
  for (const folder of folders) {
    for (const { path, text } of await pluginFiles(folder)) {
      for (const [line, i] of text.split('\n').map((l, n) => [l, n] as const)) if (/\bhasDecorator\(/.test(line)) probes.push(`${path}:${i + 1}`)
    }
  }
  t.same(probes, [])
})

t.test('rest refuses to register without the plugins whose decorators it reads', async (t) => {
  const app = Fastify({ logger: false })
  t.teardown(async () => await app.close())
  const standIn = (name: string, decorator: string) => fp(async (scope: FastifyInstance) => { scope.decorate(decorator, {}) }, { name })
  await app.register(standIn('db', 'db'))
  await app.register(standIn('geth', 'geth'))
  await app.register(standIn('indexer', 'indexer'))
  await t.rejects(async () => { await app.register(rest) }, { code: 'FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED', message: /'nft-metadata' of plugin 'rest'/ })
})
