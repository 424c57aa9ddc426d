// The read model's answers on the activity chain (test/support/answers.ts):
// at least 200 of them, over REST, GraphQL, the Etherscan-style API and the
// Phoenix socket, none a server error. With ANSWERS_OUT set to a directory,
// they are written to a file there named for this checkout (one line each):
// run this file and its copy in a checkout of the old code in one tap run
// (they share the chain template) and compare the two files byte for byte
// (scripts/compare-answers.ts does it). They are recorded
// once, on a fresh copy of the chain: a transaction summary is kept once made
// (core/interpreter/cache.ts, a jsonb column) and read back in jsonb's key
// order, so a second recording differs there.
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { buildActivityChain } from '../support/activity-chain.ts'
import { recordAnswers, writeAnswers } from '../support/answers.ts'

/** This checkout's directory as a file name (/srv/gateway: srv+gateway). */
const checkout = fileURLToPath(new URL('../..', import.meta.url)).split('/').filter(Boolean).join('+')

const { app, wallets, head, contracts, payees } = await buildActivityChain(t)
const { port } = app.server.address() as { port: number }
const url = `http://127.0.0.1:${port}`
const chain = { head, accounts: wallets.map((w) => w.address), contracts, payees }

t.test('the read routes answer the recorded requests', async (t) => {
  const answers = await recordAnswers(app, url, chain)
  if (process.env.ANSWERS_OUT !== undefined) await writeAnswers(join(process.env.ANSWERS_OUT, `${checkout}.txt`), answers)
  t.ok(answers.length >= 200, `${answers.length} answers`)
  const families = (prefix: string) => answers.filter((a) => a.request.startsWith(prefix)).length
  t.ok(families('GET /api/v2/') > 100, 'REST')
  t.ok(families('POST /api/v2/graphql') > 20, 'GraphQL')
  t.ok(families('GET /api?') > 30, 'Etherscan')
  t.ok(families('SOCKET') > 20, 'socket pushes')
  t.same(answers.filter((a) => a.status >= 500), [], 'no server error')
  t.same(answers.filter((a) => a.request.includes('graphql') && a.body.includes('"errors"')), [], 'no GraphQL error')
})
