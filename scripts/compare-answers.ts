// Compares the read routes' answers of this checkout with those of another
// commit (main by default), byte for byte, on one chain: checks the commit out
// in a temporary worktree (this checkout's node_modules linked in), copies
// test/answers/answers.test.ts and test/support/answers.ts into it (the old
// commit may not have them), runs both files in one tap run, where they share
// the activity chain's template (test/support/fixture-template.ts: the chain's
// hashes differ from one run to the next, not between its files), and
// compares the two recordings line by line. Exits 1 on a difference.
// Run: DATABASE_URL=postgres://... node --import tsx scripts/compare-answers.ts [commit] [tap options]
// (tap options such as --timeout 1200 for a loaded machine go to the one tap run).
import { cp, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const COPIED = ['test/answers/answers.test.ts', 'test/support/answers.ts']
/** How many differing requests are printed. */
const SHOWN = 10

const asFileName = (dir: string): string => dir.split('/').filter(Boolean).join('+')

async function main (commit: string, tapOptions: string[]): Promise<number> {
  const work = await mkdtemp(join(tmpdir(), 'tg-answers-'))
  const baseline = join(work, 'baseline')
  const out = join(work, 'out')
  await mkdir(out)
  await execa('git', ['-C', ROOT, 'worktree', 'add', '--detach', baseline, commit])
  try {
    await symlink(join(ROOT, 'node_modules'), join(baseline, 'node_modules'))
    for (const file of COPIED) await cp(join(ROOT, file), join(baseline, file))
    const run = await execa('npx', ['tap', ...tapOptions, 'test/answers/answers.test.ts', join(baseline, COPIED[0]!)],
      { cwd: ROOT, env: { ANSWERS_OUT: out, ANSWERS_BASELINE: asFileName(baseline) }, reject: false, all: true })
    if (run.exitCode !== 0) {
      console.error(run.all)
      return 1
    }
    const read = async (dir: string) => (await readFile(join(out, `${asFileName(dir)}.txt`), 'utf8')).split('\n')
    const [before, after] = [await read(baseline), await read(ROOT)]
    const differing = before.map((line, i) => line === after[i] ? undefined : line.split('\t')[0]).filter((r) => r !== undefined)
    if (before.length !== after.length) differing.push(`(${before.length - 1} answers before, ${after.length - 1} after)`)
    console.log(`${before.length - 1} answers compared with ${commit}: ${differing.length === 0 ? 'all identical' : `${differing.length} differ`}`)
    for (const request of differing.slice(0, SHOWN)) console.log(`  ${request}`)
    return differing.length === 0 ? 0 : 1
  } finally {
    await execa('git', ['-C', ROOT, 'worktree', 'remove', '--force', baseline])
    await rm(work, { recursive: true, force: true })
  }
}

process.exitCode = await main(process.argv[2] ?? 'main', process.argv.slice(3))
