import t from 'tap'
import { faucetClientKey } from '../../../core/faucet/client-key.ts'

t.test('faucetClientKey() keeps IPv4 whole and IPv6 to its /64', async (t) => {
  t.equal(faucetClientKey('198.51.100.7'), '198.51.100.7')
  t.equal(faucetClientKey('::ffff:198.51.100.7'), '198.51.100.7', 'dual-stack IPv4')
  t.equal(faucetClientKey('2001:db8:aa:bb::1'), '2001:db8:aa:bb::/64')
  t.equal(faucetClientKey('2001:0DB8:00aa:00bb:ffff:1:2:3'), '2001:db8:aa:bb::/64')
  t.equal(faucetClientKey('2001:db8::1'), '2001:db8:0:0::/64')
  t.equal(faucetClientKey('::1'), '0:0:0:0::/64')
  t.equal(faucetClientKey('fe80::1%eth0'), 'fe80:0:0:0::/64')
  t.equal(faucetClientKey('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64')
})
