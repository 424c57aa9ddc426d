import t from 'tap'
import { isAddressOrSubnet } from '../../../core/net/subnets.ts'

t.test('isAddressOrSubnet() takes addresses and CIDR subnets only', async (t) => {
  for (const entry of ['10.0.0.1', '10.0.0.0/8', '::1', '2001:db8::/32']) t.ok(isAddressOrSubnet(entry), entry)
  for (const entry of ['10.0.0.0/33', 'fd00::/129', 'example.com', '10.0.0.0/8/1', '10.0.0.0/x', '']) t.notOk(isAddressOrSubnet(entry), entry)
})
