import t from 'tap'
import { createBearerTokenCheck } from '../../../core/net/bearer-token.ts'

t.test('createBearerTokenCheck() accepts exactly the token, as a bearer token in any case', async (t) => {
  const isAdmin = createBearerTokenCheck('a-long-enough-token')
  t.ok(isAdmin('Bearer a-long-enough-token'))
  t.ok(isAdmin('bearer  a-long-enough-token'))
  for (const header of [undefined, '', 'a-long-enough-token', 'Bearer a-long-enough-toke', 'Bearer a-long-enough-token2', 'Basic a-long-enough-token', 'Bearer ', 'Bearer a-long-enough-token x']) {
    t.notOk(isAdmin(header), String(header))
  }
})
