// Whose budget (rate limits) and cooldown (the faucet) a request spends: IPv4 whole, IPv6 per /64.
import t from 'tap'
import { clientBucket } from '../../../core/net/client-bucket.ts'

t.test('clientBucket() keeps IPv4 and counts IPv6 by its /64, however it is written', async (t) => {
  t.equal(clientBucket('192.0.2.7'), '192.0.2.7')
  t.equal(clientBucket('::ffff:192.0.2.7'), '192.0.2.7', 'an IPv4-mapped address is its IPv4 client')
  t.equal(clientBucket('2001:db8:aa:bb::1'), '2001:db8:aa:bb::/64')
  t.equal(clientBucket('2001:0db8:00aa:00bb:ffff:1:2:3'), '2001:db8:aa:bb::/64', 'leading zeros')
  t.equal(clientBucket('2001:DB8:AA:BB::'), '2001:db8:aa:bb::/64', 'upper case')
  t.equal(clientBucket('2001:db8::1'), '2001:db8:0:0::/64', 'compressed inside the prefix')
  t.equal(clientBucket('::1'), '0:0:0:0::/64')
  t.equal(clientBucket('fe80::1%eth0'), 'fe80:0:0:0::/64', 'a zone')
  t.equal(clientBucket('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64', 'an embedded IPv4 tail')
  t.not(clientBucket('2001:db8:aa:bb::1'), clientBucket('2001:db8:aa:bc::1'))
})
