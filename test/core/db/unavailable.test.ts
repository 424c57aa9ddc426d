import t from 'tap'
import { isDatabaseUnavailable } from '../../../core/db/unavailable.ts'
import { isRetryable } from '../../../core/indexer/failures.ts'
import { IndexerLockLostError } from '../../../core/indexer/lock.ts'

const withCode = (code: string): Error => Object.assign(new Error('x'), { code })

t.test('isDatabaseUnavailable() is true for a server that cannot be reached, false for a bad query', async (t) => {
  for (const code of ['ECONNREFUSED', 'ECONNRESET', '57P01', '57P02', '57P03', '08006', '08001', '53300', '53100']) t.ok(isDatabaseUnavailable(withCode(code)), code)
  t.ok(isDatabaseUnavailable(Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' })), 'the pool could not open a connection in time')
  t.ok(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')))
  t.ok(isDatabaseUnavailable(new Error('Client has encountered a connection error and is not queryable')))
  for (const code of ['42601', '23505', '57014', '40001']) t.notOk(isDatabaseUnavailable(withCode(code)), code)
  t.notOk(isDatabaseUnavailable(new TypeError('bug')))
  t.notOk(isDatabaseUnavailable(undefined))
})

t.test('isRetryable() retries a lost indexer lock and an unreachable database', async (t) => {
  t.ok(isRetryable(new IndexerLockLostError('lost')))
  t.ok(isRetryable(withCode('57P03')))
  t.ok(isRetryable(withCode('40001')), 'a serialization failure still passes')
  t.notOk(isRetryable(withCode('42P01')))
})
