// The front end's environment file for an instance: the chain's parameters and
// every URL derived from where the gateway and the front end are reached.
import t from 'tap'
import { explorerEnv } from '../../core/explorer-env.ts'
import { browserUrl, instanceUrl } from '../../scripts/ops/explorer-env.ts'
import { loadConfig } from '../../core/config.ts'

const variables = (lines: string[]) => Object.fromEntries(lines.filter((l) => !l.startsWith('#')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))

t.test('explorerEnv() for a gateway on a local port', async (t) => {
  const env = variables(explorerEnv({ apiUrl: new URL('http://127.0.0.1:4000'), appUrl: new URL('http://localhost:3000'), chainId: 793788 }))
  t.match(env, {
    NEXT_PUBLIC_APP_PROTOCOL: 'http',
    NEXT_PUBLIC_APP_HOST: 'localhost',
    NEXT_PUBLIC_APP_PORT: '3000',
    NEXT_PUBLIC_NETWORK_ID: '793788',
    NEXT_PUBLIC_NETWORK_RPC_URL: 'http://127.0.0.1:4000/rpc',
    NEXT_PUBLIC_NETWORK_CURRENCY_SYMBOL: 'ETH',
    NEXT_PUBLIC_NETWORK_CURRENCY_DECIMALS: '18',
    NEXT_PUBLIC_IS_TESTNET: 'true',
    NEXT_PUBLIC_API_PROTOCOL: 'http',
    NEXT_PUBLIC_API_HOST: '127.0.0.1',
    NEXT_PUBLIC_API_PORT: '4000',
    NEXT_PUBLIC_API_WEBSOCKET_PROTOCOL: 'ws',
    NEXT_PUBLIC_API_SPEC_URL: 'http://127.0.0.1:4000/api/v2/openapi',
    NEXT_PUBLIC_STATS_API_HOST: 'http://127.0.0.1:4000',
    NEXT_PUBLIC_STATS_API_BASE_PATH: '/stats',
    NEXT_PUBLIC_TRANSACTION_INTERPRETATION_PROVIDER: 'blockscout',
    NEXT_PUBLIC_AD_BANNER_PROVIDER: 'none',
    NEXT_PUBLIC_AD_TEXT_PROVIDER: 'none'
  })
  t.equal(env.NEXT_PUBLIC_API_BASE_PATH, undefined, 'no base path at the root')
  t.equal(env.NEXT_PUBLIC_GRAPHIQL_TRANSACTION, undefined, 'no transaction known: left to the front end, with a comment saying why')
  t.ok(Object.keys(env).every((name) => name.startsWith('NEXT_PUBLIC_')))
})

t.test('explorerEnv() for a gateway behind an https proxy under a path', async (t) => {
  const env = variables(explorerEnv({ apiUrl: new URL('https://testnet.example/gateway/'), appUrl: new URL('https://explorer.example'), chainId: 793788 }))
  t.match(env, {
    NEXT_PUBLIC_APP_PROTOCOL: 'https',
    NEXT_PUBLIC_APP_PORT: '443',
    NEXT_PUBLIC_API_HOST: 'testnet.example',
    NEXT_PUBLIC_API_PORT: '443',
    NEXT_PUBLIC_API_BASE_PATH: '/gateway',
    NEXT_PUBLIC_API_WEBSOCKET_PROTOCOL: 'wss',
    NEXT_PUBLIC_NETWORK_RPC_URL: 'https://testnet.example/gateway/rpc',
    NEXT_PUBLIC_STATS_API_HOST: 'https://testnet.example',
    NEXT_PUBLIC_STATS_API_BASE_PATH: '/gateway/stats'
  })
})

t.test('explorerEnv() names GraphiQL\'s default transaction, or none with no GraphQL served', async (t) => {
  const hash = `0x${'ab'.repeat(32)}`
  const options = { apiUrl: new URL('http://127.0.0.1:4000'), appUrl: new URL('http://localhost:3000'), chainId: 793788 }
  t.equal(variables(explorerEnv({ ...options, graphiqlTransaction: hash })).NEXT_PUBLIC_GRAPHIQL_TRANSACTION, hash)
  t.equal(variables(explorerEnv({ ...options, graphiqlTransaction: 'none' })).NEXT_PUBLIC_GRAPHIQL_TRANSACTION, 'none')
  t.match(explorerEnv(options).join('\n'), /# NEXT_PUBLIC_GRAPHIQL_TRANSACTION: no transaction indexed yet/)
})

t.test('browserUrl() takes a served URL as a browser here reaches it', async (t) => {
  t.equal(browserUrl('http://0.0.0.0:41234'), 'http://127.0.0.1:41234')
  t.equal(browserUrl('http://[::]:41234'), 'http://127.0.0.1:41234')
  t.equal(browserUrl('http://10.0.0.5:8080'), 'http://10.0.0.5:8080')
})

t.test('instanceUrl() reads HOST and PORT, a wildcard as loopback', async (t) => {
  t.equal(instanceUrl(loadConfig({ HOST: '0.0.0.0', PORT: '8080' })), 'http://127.0.0.1:8080')
  t.equal(instanceUrl(loadConfig({ HOST: '10.0.0.5' })), 'http://10.0.0.5:4000')
  t.equal(instanceUrl(loadConfig({ HOST: '::1' })), 'http://[::1]:4000')
})
