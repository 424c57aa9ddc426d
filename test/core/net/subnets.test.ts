import t from 'tap'
import { createAddressMatcher, isAddressOrSubnet } from '../../../core/net/subnets.ts'

t.test('isAddressOrSubnet() takes addresses and CIDR subnets only', async (t) => {
  for (const entry of ['10.0.0.1', '10.0.0.0/8', '::1', '2001:db8::/32']) t.ok(isAddressOrSubnet(entry), entry)
  for (const entry of ['10.0.0.0/33', 'fd00::/129', 'example.com', '10.0.0.0/8/1', '10.0.0.0/x', '']) t.notOk(isAddressOrSubnet(entry), entry)
})

t.test('createAddressMatcher() matches listed addresses and subnets, IPv4 ones also as ::ffff: mapped', async (t) => {
  const matches = createAddressMatcher(['10.0.0.0/8', '192.0.2.7', '2001:db8::/32'])
  for (const ip of ['10.1.2.3', '::ffff:10.1.2.3', '192.0.2.7', '2001:db8:1::5']) t.ok(matches(ip), ip)
  for (const ip of ['11.0.0.1', '192.0.2.8', '2001:db9::1', 'not an address', '']) t.notOk(matches(ip), ip)
  t.notOk(createAddressMatcher([])('127.0.0.1'), 'an empty list matches nothing')
  t.throws(() => createAddressMatcher(['example.com']), /not an address or subnet/)
})
