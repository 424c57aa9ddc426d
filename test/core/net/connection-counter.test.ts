import t from 'tap'
import { createConnectionCounter } from '../../../core/net/connection-counter.ts'

t.test('createConnectionCounter() admits maxPerAddress connections per address and refuses more until one closes', async (t) => {
  const counter = createConnectionCounter({ maxPerAddress: 2 })
  const a = counter.admit('198.51.100.1')
  const b = counter.admit('198.51.100.1')
  t.ok(a.admitted && b.admitted)
  t.same(counter.admit('198.51.100.1'), { admitted: false, bucket: '198.51.100.1', first: true }, 'the third is refused, first of its episode')
  t.same(counter.admit('198.51.100.1'), { admitted: false, bucket: '198.51.100.1', first: false }, 'further ones are not first')
  t.ok(counter.admit('198.51.100.2').admitted, 'another address has its own share')
  if (a.admitted) { a.release(); a.release() }
  t.equal(counter.count('198.51.100.1'), 1, 'a release counts once')
  const c = counter.admit('198.51.100.1')
  t.ok(c.admitted, 'admitted again once one closed')
  if (b.admitted) b.release()
  if (c.admitted) c.release()
  t.equal(counter.count('198.51.100.1'), 0)
  counter.admit('198.51.100.1')
  counter.admit('198.51.100.1')
  t.match(counter.admit('198.51.100.1'), { admitted: false, first: true }, 'an address that held none starts a new episode')
})

t.test('createConnectionCounter() counts IPv6 per /64 and mapped IPv4 as IPv4', async (t) => {
  const counter = createConnectionCounter({ maxPerAddress: 1 })
  t.ok(counter.admit('2001:db8:1:2::1').admitted)
  t.match(counter.admit('2001:db8:1:2:ffff::9'), { admitted: false, bucket: '2001:db8:1:2::/64' }, 'the same /64')
  t.ok(counter.admit('2001:db8:1:3::1').admitted, 'another /64')
  t.ok(counter.admit('203.0.113.5').admitted)
  t.match(counter.admit('::ffff:203.0.113.5'), { admitted: false, bucket: '203.0.113.5' })
})

t.test('createConnectionCounter() does not count exempt addresses (trusted proxies) nor a socket without an address', async (t) => {
  const counter = createConnectionCounter({ maxPerAddress: 1, isExempt: (ip) => ip === '10.0.0.1' })
  for (let i = 0; i < 5; i++) t.ok(counter.admit('10.0.0.1').admitted)
  t.equal(counter.count('10.0.0.1'), 0)
  t.ok(counter.admit(undefined).admitted)
  t.ok(counter.admit('10.0.0.2').admitted)
  t.notOk(counter.admit('10.0.0.2').admitted, 'others are still counted')
})
