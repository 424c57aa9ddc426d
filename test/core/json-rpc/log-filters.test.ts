import t from 'tap'
import { FILTER_IDLE_MS, MAX_LOG_FILTERS, createLogFilters } from '../../../core/json-rpc/log-filters.ts'

t.test('createLogFilters() remembers criteria until uninstalled or idle longer than Geth keeps a filter', async (t) => {
  let now = 0
  const filters = createLogFilters(() => now)
  filters.remember('0x1', { fromBlock: '0x5' })
  filters.remember('0x2', { address: '0xab' })
  t.same(filters.criteriaOf('0x1'), { fromBlock: '0x5' })
  t.equal(filters.criteriaOf('0x3'), undefined, 'a block filter or unknown id has none')
  filters.forget('0x2')
  t.equal(filters.criteriaOf('0x2'), undefined)
  now = FILTER_IDLE_MS
  t.same(filters.criteriaOf('0x1'), { fromBlock: '0x5' }, 'a use keeps it')
  now = FILTER_IDLE_MS + 10
  filters.remember('0x4', {})
  now = 2 * FILTER_IDLE_MS + 1
  filters.assertRoom()
  t.equal(filters.criteriaOf('0x1'), undefined, 'idle too long: forgotten')
  t.same(filters.criteriaOf('0x4'), {})
})

t.test('createLogFilters() refuses new filters while MAX_LOG_FILTERS are remembered', async (t) => {
  let now = 0
  const filters = createLogFilters(() => now)
  for (let i = 0; i < MAX_LOG_FILTERS; i++) filters.remember('0x' + i.toString(16), {})
  t.throws(() => filters.assertRoom(), { code: -32005 })
  now = FILTER_IDLE_MS + 1
  t.doesNotThrow(() => filters.assertRoom(), 'room again once they expire')
})
