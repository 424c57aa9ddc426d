import t from 'tap'
import { createMetricsAccess } from '../../../core/metrics/access.ts'
import { loadConfig } from '../../../core/config.ts'

t.test('createMetricsAccess() lets loopback in, and the listed addresses and subnets', async (t) => {
  const access = createMetricsAccess({ allow: ['192.0.2.0/24', 'fd00::/8', '198.51.100.9'], adminToken: undefined })
  for (const ip of ['127.0.0.1', '127.3.2.1', '::1', '::ffff:127.0.0.1', '192.0.2.200', 'fd12::1', '198.51.100.9']) t.ok(access.isAllowed(ip, undefined), ip)
  for (const ip of ['192.0.3.1', '198.51.100.10', 'fe80::1', '', 'nonsense']) t.notOk(access.isAllowed(ip, undefined), ip)
  t.notOk(access.isAllowed('192.0.3.1', 'Bearer anything'), 'no token configured, no token accepted')
})

t.test('createMetricsAccess() accepts exactly ADMIN_TOKEN as a bearer token', async (t) => {
  const access = createMetricsAccess({ allow: [], adminToken: 'a-long-enough-token' })
  t.ok(access.isAllowed('192.0.3.1', 'Bearer a-long-enough-token'))
  t.ok(access.isAllowed('192.0.3.1', 'bearer a-long-enough-token'))
  for (const header of ['a-long-enough-token', 'Bearer a-long-enough-toke', 'Bearer a-long-enough-token2', 'Basic a-long-enough-token', 'Bearer ']) {
    t.notOk(access.isAllowed('192.0.3.1', header), header)
  }
})

t.test('loadConfig() refuses a METRICS_ALLOW entry that is no address, and a short ADMIN_TOKEN', async (t) => {
  t.throws(() => loadConfig({ METRICS_ALLOW: '10.0.0.0/8, example.com' }), /METRICS_ALLOW lists "example\.com"/)
  t.throws(() => loadConfig({ ADMIN_TOKEN: 'short' }), /ADMIN_TOKEN/)
  t.same(loadConfig({ METRICS_ALLOW: ' 10.0.0.0/8 ,::1' }).metrics.allow, ['10.0.0.0/8', '::1'])
})

t.test('loadConfig() turns the faucet on by default only when HOST is not loopback', async (t) => {
  t.equal(loadConfig({ HOST: '127.0.0.1' }).faucet.enabled, false)
  t.equal(loadConfig({ HOST: 'localhost' }).faucet.enabled, false)
  t.equal(loadConfig({ HOST: '::1' }).faucet.enabled, false)
  t.equal(loadConfig({ HOST: '0.0.0.0' }).faucet.enabled, true)
  t.equal(loadConfig({ HOST: '0.0.0.0', FAUCET_ENABLED: 'false' }).faucet.enabled, false)
  t.equal(loadConfig({ FAUCET_AMOUNT: '0.25' }).faucet.amountWei, 250000000000000000n)
  t.throws(() => loadConfig({ FAUCET_AMOUNT: '-1' }), /FAUCET_AMOUNT/)
})
