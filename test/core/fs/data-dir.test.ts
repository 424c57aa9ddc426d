// ensureDataDir: DATA_DIR and its missing parents are made for their owner only; an existing one keeps its mode.
import t from 'tap'
import { chmod, mkdir, mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureDataDir } from '../../../core/fs/data-dir.ts'

const root = await mkdtemp(join(tmpdir(), 'tg-data-dir-'))
t.teardown(async () => await rm(root, { recursive: true, force: true }))

t.test('ensureDataDir() makes the directory and its parents with mode 0700', async (t) => {
  const dir = join(root, 'a', 'b', 'data')
  await ensureDataDir(dir)
  for (const path of [join(root, 'a'), join(root, 'a', 'b'), dir]) t.equal((await stat(path)).mode & 0o777, 0o700, path)
  await ensureDataDir(dir)
  t.pass('a second call on the same directory succeeds')
})

t.test('ensureDataDir() leaves an existing directory\'s mode as its operator set it', async (t) => {
  const dir = join(root, 'existing')
  await mkdir(dir)
  await chmod(dir, 0o750)
  await ensureDataDir(dir)
  t.equal((await stat(dir)).mode & 0o777, 0o750)
})
