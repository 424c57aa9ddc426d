import t from 'tap'
import { loadConfig } from '../../core/config.ts'

t.test('loadConfig() applies documented defaults', async (t) => {
  const config = loadConfig({})
  t.equal(config.host, '127.0.0.1')
  t.equal(config.port, 4000)
  t.equal(config.chainId, 793788)
  t.equal(config.geth.cliquePeriod, 5)
  t.equal(config.geth.gcmode, 'archive')
  t.equal(config.geth.maxPeers, 0)
  t.equal(config.rpcProxy.maxBatch, 100)
  t.equal(config.rpcProxy.maxLogRange, 10000)
  t.equal(config.rpcProxy.traceTimeoutMs, 5000)
  t.equal(config.rpcProxy.traceMaxBytes, 16 * 1024 * 1024)
  t.equal(config.databaseUrl, undefined)
  t.match(config.dataDir, /\/data$/)
  t.ok(Object.isFrozen(config) && Object.isFrozen(config.geth), 'the config is frozen')
})

t.test('loadConfig() reads the p2p settings: peers allowed once an instance listens, dials or joins', async (t) => {
  const loopback = loadConfig({})
  t.equal(loopback.geth.p2pPort, undefined)
  t.same(loopback.geth.peers, [])
  t.equal(loopback.geth.joinUrl, undefined)
  const enode = 'enode://' + 'ab'.repeat(64) + '@192.0.2.1:30303'
  t.equal(loadConfig({ P2P_PORT: '30303' }).geth.maxPeers, 25)
  t.equal(loadConfig({ JOIN_URL: 'http://192.0.2.1:4000' }).geth.maxPeers, 25)
  t.equal(loadConfig({ P2P_PORT: '30303', GETH_MAXPEERS: '5' }).geth.maxPeers, 5)
  const config = loadConfig({ P2P_PORT: '30303', P2P_EXTERNAL_IP: '192.0.2.7', P2P_PEERS: `${enode}, ${enode.replace('ab', 'cd')}` })
  t.equal(config.geth.p2pPort, 30303)
  t.equal(config.geth.externalIp, '192.0.2.7')
  t.same(config.geth.peers, [enode, enode.replace('ab', 'cd')])
  t.equal(config.geth.maxPeers, 25)
  for (const bad of [{ P2P_PORT: '0' }, { P2P_PEERS: 'http://x' }, { JOIN_URL: 'example.org' }, { P2P_EXTERNAL_IP: 'host name' }]) {
    t.throws(() => loadConfig(bad), { code: 'GW_ERR_CONFIG_INVALID' }, JSON.stringify(bad))
  }
})

t.test('loadConfig() coerces numbers and treats empty values as unset', async (t) => {
  const config = loadConfig({ PORT: '8080', CLIQUE_PERIOD: '0', DATABASE_URL: '', RPC_MAX_BATCH: '5' })
  t.equal(config.port, 8080)
  t.equal(config.geth.cliquePeriod, 0)
  t.equal(config.databaseUrl, undefined)
  t.equal(config.rpcProxy.maxBatch, 5)
})

t.test('loadConfig() stops with one message naming a bad variable', async (t) => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ CLIQUE_PERIOD: '-1' }, /CLIQUE_PERIOD/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ GETH_GCMODE: 'light' }, /GETH_GCMODE/],
    [{ GETH_RPC_URL: 'localhost:8545' }, /GETH_RPC_URL/]
  ]
  for (const [env, name] of cases) {
    t.throws(() => loadConfig(env), { code: 'GW_ERR_CONFIG_INVALID', message: name }, JSON.stringify(env))
  }
})

t.test('loadConfig() passes only the child-process variables on', async (t) => {
  const config = loadConfig({ PATH: '/bin', HOME: '/root', SECRET: 'x', GOPROXY: 'direct' })
  t.same(config.childEnv, { PATH: '/bin', HOME: '/root', GOPROXY: 'direct' })
})

t.test('DATABASE_POOL_MAX sizes the database pools (10 by default)', async (t) => {
  t.equal(loadConfig({}).databasePoolMax, 10)
  t.equal(loadConfig({ DATABASE_POOL_MAX: '3' }).databasePoolMax, 3)
  t.throws(() => loadConfig({ DATABASE_POOL_MAX: '0' }), /DATABASE_POOL_MAX/)
})

t.test('NFT metadata settings: on, through ipfs.io, private hosts refused, unless told otherwise', async (t) => {
  t.same(loadConfig({}).nftMetadata, { enabled: true, ipfsGateway: 'https://ipfs.io/ipfs/', allowPrivateHosts: false })
  t.same(loadConfig({ NFT_METADATA_ENABLED: 'false', NFT_METADATA_IPFS_GATEWAY: 'http://10.0.0.5:8080/ipfs/', NFT_METADATA_ALLOW_PRIVATE_HOSTS: 'true' }).nftMetadata,
    { enabled: false, ipfsGateway: 'http://10.0.0.5:8080/ipfs/', allowPrivateHosts: true })
  t.throws(() => loadConfig({ NFT_METADATA_IPFS_GATEWAY: 'ipfs://x' }), /NFT_METADATA_IPFS_GATEWAY/)
})

t.test('access settings: limits on at 100 and 1000 a minute, no Redis, no trusted proxy, no admin API, unless told otherwise', async (t) => {
  const config = loadConfig({})
  t.same(config.rateLimit, { enabled: true, publicPerMin: 100, premiumPerMin: 1000, traceWeight: 10, explorerOrigins: [], explorerPerMin: 600, redisUrl: undefined })
  t.same(config.trustProxy, [])
  t.equal(config.auth.adminToken, undefined)
  t.same(loadConfig({ TRUST_PROXY: '10.0.0.1,192.168.0.0/16,fd00::/8' }).trustProxy, ['10.0.0.1', '192.168.0.0/16', 'fd00::/8'])
  for (const bad of ['10.0.0.256', '10.0.0.0/33', 'fd00::/129', '10.0.0.1/8/8', '1.2.3.4,', 'true']) {
    t.throws(() => loadConfig({ TRUST_PROXY: bad }), { code: 'GW_ERR_CONFIG_INVALID', message: /TRUST_PROXY/ }, bad)
  }
  t.throws(() => loadConfig({ ADMIN_TOKEN: 'short' }), /ADMIN_TOKEN/)
  t.throws(() => loadConfig({ REDIS_URL: 'localhost:6379' }), /REDIS_URL/)
  t.throws(() => loadConfig({ RATE_LIMIT_PUBLIC_PER_MIN: '0' }), /RATE_LIMIT_PUBLIC_PER_MIN/)
})

t.test('connection and upload settings: 100 connections an address, headers within 5 s (never after the request timeout), 20 MiB forms and 10 MiB of sources', async (t) => {
  const config = loadConfig({})
  t.same(config.http, { requestTimeoutMs: 30000, headersTimeoutMs: 5000, maxConnections: 1000, maxConnectionsPerAddress: 100 })
  t.match(config.verify, { maxBodyBytes: 20 * 1024 * 1024, maxSourcesBytes: 10 * 1024 * 1024 })
  t.equal(loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '2000' }).http.headersTimeoutMs, 2000, 'a request timeout under it bounds it')
  t.throws(() => loadConfig({ VERIFY_MAX_BODY_BYTES: '1000' }), /VERIFY_MAX_BODY_BYTES must be >= 1048576/)
})

t.test('SOLC_DOWNLOAD: on by default, from solc-bin; false downloads nothing', async (t) => {
  t.equal(loadConfig({}).verify.solcDownloadUrl, 'https://binaries.soliditylang.org/bin')
  t.equal(loadConfig({ SOLC_DOWNLOAD_URL: 'http://127.0.0.1:9/bin' }).verify.solcDownloadUrl, 'http://127.0.0.1:9/bin')
  t.equal(loadConfig({ SOLC_DOWNLOAD: 'false' }).verify.solcDownloadUrl, undefined)
})

t.test('RPC_UPSTREAMS: none by default, a comma-separated list of http(s) URLs, anything else refused at boot', async (t) => {
  const defaults = loadConfig({}).rpcProxy
  t.same([defaults.upstreams, defaults.upstreamMaxLagBlocks, defaults.upstreamCheckIntervalMs], [[], 3, 2000])
  t.same(loadConfig({ RPC_UPSTREAMS: ' http://10.0.0.2:8545 ,https://node.example/rpc/key,' }).rpcProxy.upstreams, ['http://10.0.0.2:8545', 'https://node.example/rpc/key'])
  for (const bad of ['10.0.0.2:8545', 'ws://10.0.0.2:8546', 'http://ok:1,nonsense']) {
    t.throws(() => loadConfig({ RPC_UPSTREAMS: bad }), { code: 'GW_ERR_CONFIG_INVALID', message: /RPC_UPSTREAMS/ }, bad)
  }
})
