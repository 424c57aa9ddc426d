// The explorer front end's budget (RATE_LIMIT_EXPLORER_ORIGINS): keyless
// requests sent with the explorer's Origin are counted per address at their
// own, larger limit, apart from the address's public budget; any other
// Origin, or none, spends the public one. Limits of 4 and 9 keep it short.
import t from 'tap'
import type { InjectOptions } from 'fastify'
import { build } from '../../helper.ts'
import { loadConfig } from '../../../core/config.ts'

const PUBLIC = 4
const EXPLORER = 9
const EXPLORER_ORIGIN = 'https://explorer.example'
const { app } = await build(t, {
  RATE_LIMIT_ENABLED: 'true',
  RATE_LIMIT_PUBLIC_PER_MIN: String(PUBLIC),
  RATE_LIMIT_EXPLORER_PER_MIN: String(EXPLORER),
  RATE_LIMIT_EXPLORER_ORIGINS: `${EXPLORER_ORIGIN}/, http://localhost:3000`
})

let nextAddress = 1
const newAddress = (): string => `10.1.0.${nextAddress++}`
const rest = (remoteAddress: string, origin?: string) => app.inject({
  method: 'GET', url: '/api/v2/main-page/indexing-status', remoteAddress, headers: origin === undefined ? {} : { origin }
} as InjectOptions)
/** Sends requests until one is refused: how many were served. */
async function served (remoteAddress: string, origin?: string): Promise<number> {
  for (let n = 0; n < 50; n++) if ((await rest(remoteAddress, origin)).statusCode === 429) return n
  return Infinity
}

t.test('the explorer\'s Origin gets RATE_LIMIT_EXPLORER_PER_MIN per address, with its own policy in the headers', async (t) => {
  const address = newAddress()
  const first = await rest(address, EXPLORER_ORIGIN)
  t.equal(first.headers['x-ratelimit-limit'], String(EXPLORER))
  t.match(first.headers['ratelimit-policy'], `"explorer";q=${EXPLORER};w=60`)
  t.equal(await served(address, EXPLORER_ORIGIN), EXPLORER - 1)
  t.equal(await served('10.1.1.1', 'http://localhost:3000'), EXPLORER, 'each origin listed')
})

t.test('other origins, and none, get the public budget', async (t) => {
  t.equal(await served(newAddress()), PUBLIC)
  t.equal(await served(newAddress(), 'https://other.example'), PUBLIC)
  t.equal(await served(newAddress(), 'https://explorer.example.evil'), PUBLIC)
  t.equal(await served(newAddress(), `${EXPLORER_ORIGIN}:8443`), PUBLIC, 'another port is another origin')
})

t.test('the two budgets of one address are apart: the explorer\'s spent, its public one is whole, and the other way round', async (t) => {
  const address = newAddress()
  t.equal(await served(address, EXPLORER_ORIGIN), EXPLORER)
  t.equal(await served(address), PUBLIC)
  const other = newAddress()
  t.equal(await served(other), PUBLIC)
  t.equal(await served(other, EXPLORER_ORIGIN), EXPLORER)
})

t.test('the explorer\'s budget is per address: another address starts whole', async (t) => {
  t.equal(await served(newAddress(), EXPLORER_ORIGIN), EXPLORER)
  t.equal(await served(newAddress(), EXPLORER_ORIGIN), EXPLORER)
})

t.test('loadConfig(): explorer origins are read as browsers send Origin, and must be origins CORS_ORIGINS allows', async (t) => {
  t.same(loadConfig({ RATE_LIMIT_EXPLORER_ORIGINS: 'https://Explorer.Example/ , http://localhost:3000' }).rateLimit.explorerOrigins,
    ['https://explorer.example', 'http://localhost:3000'])
  t.same(loadConfig({}).rateLimit.explorerOrigins, [], 'none unless set')
  t.equal(loadConfig({}).rateLimit.explorerPerMin, 600)
  t.same(loadConfig({ CORS_ORIGINS: 'https://explorer.example', RATE_LIMIT_EXPLORER_ORIGINS: 'https://explorer.example' }).rateLimit.explorerOrigins, ['https://explorer.example'])
  t.throws(() => loadConfig({ CORS_ORIGINS: 'https://explorer.example', RATE_LIMIT_EXPLORER_ORIGINS: 'https://other.example' }),
    /RATE_LIMIT_EXPLORER_ORIGINS names https:\/\/other\.example, which CORS_ORIGINS does not allow/)
  t.throws(() => loadConfig({ RATE_LIMIT_EXPLORER_ORIGINS: 'explorer.example' }), /RATE_LIMIT_EXPLORER_ORIGINS/)
})
