// The source tree is layered by folder: when two folders import each other,
// neither can be understood, tested or moved without the other (issue 21
// found core/indexer and core/queries doing so; issue 37 plugins/graphql and
// its resolvers, scripts/lib and scripts/bench). This walks the import
// statements of every .ts file under core/, geth/, plugins/ and scripts/ and
// fails on any cycle between folders. Each folder is a node of its own, a
// subfolder too (a resolvers/ folder the plugin imports must not import the
// plugin back); a file at a root's top level (core/config.ts, plugins/index.ts,
// scripts/start.ts) counts as a folder of its own.
import t from 'tap'
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const SOURCE_ROOTS = ['core', 'geth', 'plugins', 'scripts']

// Static imports and re-exports (also multi-line and `import type`), side-effect imports, dynamic import().
const IMPORT_SPECIFIERS = [
  /\b(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
  /\bimport\s+['"]([^'"]+)['"]/g,
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g
]

async function listTypeScript (dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true })
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => join(e.parentPath, e.name))
}

/** Relative specifiers only: packages and node: builtins are outside the tree. */
export function importedPaths (source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')
  const found = new Set<string>()
  for (const pattern of IMPORT_SPECIFIERS) {
    for (const match of code.matchAll(pattern)) if (match[1]!.startsWith('.')) found.add(match[1]!)
  }
  return [...found]
}

/** The folder a source file belongs to (its directory, from the repository root), or the file itself at a root's top level; undefined outside the source roots. */
export function folderOf (file: string): string | undefined {
  const path = relative(ROOT, file)
  const parts = path.split(sep)
  if (!SOURCE_ROOTS.includes(parts[0]!) || parts.length < 2) return undefined
  return parts.length === 2 ? parts.join('/') : parts.slice(0, -1).join('/')
}

/** Folder-level edges: folder -> the folders it imports, each with one file that does it (for the message). */
async function folderGraph (): Promise<Map<string, Map<string, string>>> {
  const graph = new Map<string, Map<string, string>>()
  for (const root of SOURCE_ROOTS) {
    for (const file of await listTypeScript(join(ROOT, root))) {
      const from = folderOf(file)!
      const edges = graph.get(from) ?? new Map<string, string>()
      graph.set(from, edges)
      for (const specifier of importedPaths(await readFile(file, 'utf8'))) {
        const to = folderOf(resolve(dirname(file), specifier))
        if (to !== undefined && to !== from && !edges.has(to)) edges.set(to, `${relative(ROOT, file)} imports ${specifier}`)
      }
    }
  }
  return graph
}

/** Strongly connected components of more than one folder (Tarjan): each is a cycle. */
export function findCycles (graph: Map<string, Iterable<string>>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (node: string): void => {
    index.set(node, next)
    low.set(node, next++)
    stack.push(node)
    onStack.add(node)
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to)
        low.set(node, Math.min(low.get(node)!, low.get(to)!))
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!))
      }
    }
    if (low.get(node) !== index.get(node)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1) cycles.push(component.sort())
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return cycles
}

t.test('importedPaths() reads static, multi-line, type-only, side-effect and dynamic imports, not comments', async (t) => {
  const source = [
    "import { a } from './a.ts'",
    'import {',
    '  b,',
    '  c',
    "} from '../b/index.ts'",
    "import type { D } from '../d/types.ts'",
    "export { e } from './e.ts'",
    "import './side-effect.ts'",
    "const f = await import('../f/lazy.ts')",
    "import pg from 'pg'",
    "// import { g } from '../g/commented.ts'",
    "/* import { h } from '../h/commented.ts' */"
  ].join('\n')
  t.same(importedPaths(source).sort(), ['../b/index.ts', '../d/types.ts', '../f/lazy.ts', './a.ts', './e.ts', './side-effect.ts'])
})

t.test('findCycles() finds two folders importing each other and longer loops, not a chain', async (t) => {
  t.same(findCycles(new Map([['indexer', ['queries']], ['queries', ['indexer']]])), [['indexer', 'queries']])
  t.same(findCycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]])), [['a', 'b', 'c']])
  t.same(findCycles(new Map([['a', ['b']], ['b', ['c']], ['c', []]])), [])
})

t.test('folderOf() names a file\'s directory, or the file at a root\'s top level, and nothing outside the roots', async (t) => {
  t.equal(folderOf(join(ROOT, 'core', 'indexer', 'store.ts')), 'core/indexer')
  t.equal(folderOf(join(ROOT, 'plugins', 'graphql', 'resolvers', 'types.ts')), 'plugins/graphql/resolvers')
  t.equal(folderOf(join(ROOT, 'core', 'config.ts')), 'core/config.ts')
  t.equal(folderOf(join(ROOT, 'test', 'helper.ts')), undefined)
})

t.test('core/, geth/, plugins/ and scripts/ have no import cycle between their folders', async (t) => {
  const graph = await folderGraph()
  for (const folder of ['core/indexer', 'core/queries', 'geth', 'plugins/graphql', 'plugins/graphql/resolvers', 'scripts/lib', 'scripts/bench']) {
    t.ok([...graph.keys()].some((node) => node === folder || node.startsWith(`${folder}/`)), `the walk found ${folder}`)
  }
  const cycles = findCycles(new Map([...graph].map(([from, edges]) => [from, [...edges.keys()]])))
  const explain = (cycle: string[]): string => cycle.flatMap((from) => cycle.filter((to) => graph.get(from)!.has(to)).map((to) => `${from} -> ${to} (${graph.get(from)!.get(to)!})`)).join('; ')
  t.same(cycles.map(explain), [], 'no folder imports, directly or through others, a folder that imports it')
})
