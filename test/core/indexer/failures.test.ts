import t from 'tap'
import { isRetryable } from '../../../core/indexer/failures.ts'
import { FatalError, RetryableError } from '../../../core/errors.ts'
import { RpcResponseError, RpcUnavailableError } from '../../../core/rpc/client.ts'

t.test('isRetryable() retries what may pass and stops on the rest, by class', async (t) => {
  t.ok(isRetryable(new RetryableError('x')))
  t.ok(isRetryable(new RpcUnavailableError('node down')))
  t.ok(isRetryable(new RpcResponseError(-32000, 'header not found')))
  t.ok(isRetryable(Object.assign(new Error('terminating connection'), { code: '57P01' })), 'admin shutdown')
  t.ok(isRetryable(Object.assign(new Error('could not connect'), { code: '08006' })))
  t.ok(isRetryable(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })))
  t.notOk(isRetryable(new FatalError('bad config')))
  t.notOk(isRetryable(Object.assign(new Error('syntax'), { code: '42601' })), 'a broken query will not fix itself')
  t.notOk(isRetryable(new TypeError('bug')))
})
