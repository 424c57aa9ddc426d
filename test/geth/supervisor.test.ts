// hasExited(): when an orphaned Geth killed with -9 has let go of its data directory.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { hasExited } from '../../geth/supervisor.ts'

t.test('hasExited() reads the state of /proc/<pid>/stat: running no, zombie or gone yes, whatever the command name holds', async (t) => {
  t.equal(hasExited(await readFile('/proc/self/stat', 'utf8')), false, 'this process')
  t.equal(hasExited(undefined), true, 'no such process')
  t.equal(hasExited('4242 (geth) Z 1 4242 4242 0 -1 4194560 0 0'), true, 'a zombie: its files are closed')
  t.equal(hasExited('4242 (geth) X 1 4242 4242 0 -1 4194560 0 0'), true)
  t.equal(hasExited('4242 (geth) D 1 4242 4242 0 -1 4194560 0 0'), false, 'still tearing down')
  t.equal(hasExited('4242 (a) Z (b) R 1 4242 4242 0'), false, 'a command name with parentheses and a state-like letter in it')
})
