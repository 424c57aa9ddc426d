// Docs that say the same thing in two places say it alike, and none calls a
// served route not served (issue 33): the Hardhat network's name in the README
// and in docs/verification.md, and docs/explorer.md on contract verification.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const read = async (path: string): Promise<string> => await readFile(join(ROOT, path), 'utf8')

/** Every Hardhat network name a document's examples use: in `networks: { <name>: {`, `--network <name>`, `network: '<name>'` and apiKey's `{ <name>: `. */
function hardhatNetworks (text: string): Set<string> {
  const names = new Set<string>()
  for (const pattern of [/networks: \{\s*(\w+): \{/g, /--network (\w+)/g, /network: '(\w+)'/g, /apiKey: \{ (\w+): /g]) {
    for (const match of text.matchAll(pattern)) names.add(match[1]!)
  }
  return names
}

t.test('the README and docs/verification.md name the Hardhat network alike, as the test project does', async (t) => {
  const fixture = hardhatNetworks(await read('test/fixtures/hardhat-project/hardhat.config.cjs'))
  t.same([...hardhatNetworks(await read('README.md'))], ['gateway'])
  t.same([...hardhatNetworks(await read('docs/verification.md'))], ['gateway'])
  t.ok(fixture.has('gateway'))
})

t.test('docs/explorer.md does not call contract verification not served, which its table routes', async (t) => {
  const explorer = await read('docs/explorer.md')
  t.match(explorer, /verification\/via/, 'the table routes the verification form')
  const notServed = explorer.split('\n').filter((line) => /not served/i.test(line))
  t.notOk(notServed.some((line) => /verification/i.test(line)), notServed.join('\n'))
})

t.test('docs/verification.md says a partial match may be replaced by another partial one, as core/verify/store.ts does', async (t) => {
  const verification = (await read('docs/verification.md')).replace(/\s+/g, ' ')
  t.match(verification, /A partial match is not: any later verification of the same address that matches, fully or partially, replaces it/)
  t.match(await read('core/verify/store.ts'), /where verified_contracts\.match_type = 'partial'/)
})
