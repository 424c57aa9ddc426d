import t from 'tap'
import { clientBucket } from '../../../core/rate-limit/client-address.ts'
import { createMemoryCounters } from '../../../core/rate-limit/memory-counters.ts'

t.test('clientBucket() keeps IPv4 and counts IPv6 by its /64, however it is written', async (t) => {
  t.equal(clientBucket('192.0.2.7'), '192.0.2.7')
  t.equal(clientBucket('::ffff:192.0.2.7'), '192.0.2.7', 'an IPv4-mapped address is its IPv4 client')
  t.equal(clientBucket('2001:db8:aa:bb::1'), '2001:db8:aa:bb::/64')
  t.equal(clientBucket('2001:0db8:00aa:00bb:ffff:1:2:3'), '2001:db8:aa:bb::/64', 'leading zeros')
  t.equal(clientBucket('2001:DB8:AA:BB::'), '2001:db8:aa:bb::/64', 'upper case')
  t.equal(clientBucket('2001:db8::1'), '2001:db8:0:0::/64', 'compressed inside the prefix')
  t.equal(clientBucket('::1'), '0:0:0:0::/64')
  t.equal(clientBucket('fe80::1%eth0'), 'fe80:0:0:0::/64', 'a zone')
  t.not(clientBucket('2001:db8:aa:bb::1'), clientBucket('2001:db8:aa:bc::1'))
})

t.test('memory counters add the cost within a window and start again after it', async (t) => {
  const counters = createMemoryCounters()
  t.same(counters.incr('k', 20, 50).count, 20)
  t.same(counters.incr('k', 1, 50).count, 21)
  t.equal(counters.incr('other', 1, 50).count, 1)
  await new Promise((resolve) => setTimeout(resolve, 60))
  const fresh = counters.incr('k', 1, 50)
  t.equal(fresh.count, 1)
  t.ok(fresh.ttlMs > 0 && fresh.ttlMs <= 50)
})
