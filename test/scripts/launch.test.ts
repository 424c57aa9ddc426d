// scripts/launch.mjs: dist/ is compiled again exactly when the sources it was
// built from changed (npm run smoke starts a fresh clone twice: the first
// start compiles, the second does not).
import t from 'tap'
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// @ts-expect-error plain JavaScript without declarations: it runs before anything is compiled
import { sourceFingerprint } from '../../scripts/launch.mjs'

const fingerprint = sourceFingerprint as (root: string) => string
const root = await mkdtemp(join(tmpdir(), 'tg-launch-'))
t.teardown(async () => await rm(root, { recursive: true, force: true }))
for (const dir of ['core/db', 'geth', 'plugins/graphql', 'scripts']) await mkdir(join(root, dir), { recursive: true })
for (const file of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'core/db/index.ts', 'geth/node.ts', 'plugins/graphql/schema.graphql', 'scripts/start.ts']) await writeFile(join(root, file), `// ${file}\n`)

t.test('sourceFingerprint() is stable, and changes with any source or build file', async (t) => {
  const first = fingerprint(root)
  t.equal(fingerprint(root), first, 'the same sources give the same fingerprint')
  await writeFile(join(root, 'docs.md'), 'not a source')
  await writeFile(join(root, 'scripts', 'notes.txt'), 'not a source either')
  t.equal(fingerprint(root), first, 'files that are not compiled change nothing')

  const steps: Array<[string, () => Promise<unknown>]> = [
    ['a source edited (same size, new time)', async () => await utimes(join(root, 'core/db/index.ts'), new Date(), new Date(Date.now() + 5000))],
    ['a source added', async () => await writeFile(join(root, 'geth', 'keys.ts'), 'export {}\n')],
    ['a source removed', async () => await rm(join(root, 'geth', 'keys.ts'))],
    ['the GraphQL schema edited', async () => await writeFile(join(root, 'plugins/graphql/schema.graphql'), 'type Query { a: Int }\n')],
    ['tsconfig.build.json edited', async () => await writeFile(join(root, 'tsconfig.build.json'), '{}\n')]
  ]
  // Each against the sources dist/ would have been built from just before.
  let built = first
  for (const [what, change] of steps) {
    await change()
    const next = fingerprint(root)
    t.not(next, built, what)
    built = next
  }
})
