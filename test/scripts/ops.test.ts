// `npm run ops` against a real gateway process (embedded PostgreSQL in its
// DATA_DIR): through endpoints.json while it runs, on its own once it stopped,
// and with GETH_RPC_URL/DATABASE_URL.
import t from 'tap'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import knex from 'knex'
import { createRpcClient } from '../../core/rpc/client.ts'
import { ENDPOINTS_FILE, readEndpoints } from '../../core/endpoints.ts'
import { createTestChainFiles } from '../support/chain.ts'
import { sealBlocks, writeFundedAlloc } from '../support/blocks.ts'
import { runOps, startGatewayProcess, waitFor, type OpsResult } from '../support/gateway-process.ts'
import { loadConfig } from '../../core/config.ts'
import { withServiceEnvironment } from '../../scripts/ops/service-env.ts'
import { runStatus } from '../../scripts/ops/status.ts'
import { readSigner } from '../../geth/keys.ts'

const chain = await createTestChainFiles(t)
const { wallets, allocFile } = await writeFundedAlloc(t, 4)
// Empty: the gateway starts embedded PostgreSQL in DATA_DIR/postgres, as `npm start` does.
const env = { ...chain.env, GENESIS_ALLOC: allocFile, DATABASE_URL: '', GETH_RPC_URL: '', RATE_LIMIT_ENABLED: '', RATE_LIMIT_PUBLIC_PER_MIN: '', RATE_LIMIT_PREMIUM_PER_MIN: '', REDIS_URL: '' }
const gateway = await startGatewayProcess(t, env)
const endpoints = (await readEndpoints(chain.dataDir))!
const rpc = createRpcClient({ url: endpoints.geth_rpc_url, timeoutMs: 10_000 })
t.teardown(() => rpc.close())
const db = knex({ client: 'pg', connection: endpoints.database_url, pool: { min: 0, max: 2 } })
t.teardown(async () => await db.destroy())

// Raised by the faucet test's block, which the later tests take as the head.
let { head } = await sealBlocks({ rpc, wallets, rounds: 8 })
await waitFor('the gateway to index the head', async () => {
  const { body } = await gateway.health()
  return body.indexer.head === head ? true : undefined
})

/** What ops prints for the running gateway: endpoints.json and nothing else. */
const ops = async (...args: string[]): Promise<OpsResult> => await runOps(args, env)
const mismatchLines = (result: OpsResult) => result.stdout.split('\n').filter((l) => l.startsWith('block '))

t.test('ops --help prints the usage and exits 0; a bad command line exits 2 with it', async (t) => {
  const [help, bogus] = await Promise.all([ops('--help'), ops('bogus', '--from', '1')])
  t.equal(help.exitCode, 0)
  t.match(help.stdout, /status \[--json\][\s\S]*verify-index \[--from N\] \[--to M\][\s\S]*reindex --from N[\s\S]*faucet <address> \[amount\][\s\S]*install-service/)
  const one = await ops('status', '--help')
  t.equal(one.exitCode, 0)
  t.match(one.stdout, /^Usage: npm run ops -- status \[--json\]/)
  t.notMatch(one.stdout, 'verify-index')
  t.equal(bogus.exitCode, 2)
  t.match(bogus.stderr, 'Invalid ops command line: unknown command "bogus"')
  t.match(bogus.stderr, 'Usage: npm run ops')
})

t.test('the gateway publishes its Geth and database in endpoints.json', async (t) => {
  t.equal(endpoints.pid, gateway.pid)
  t.match(endpoints.geth_rpc_url, /^http:\/\/127\.0\.0\.1:\d+$/)
  t.match(endpoints.database_url, /^postgres:\/\/.*@127\.0\.0\.1:\d+\/gateway$/)
})

t.test('status reports the running gateway: chain, head, signer, indexer, database, GraphQL, URLs', async (t) => {
  const [text, json] = await Promise.all([ops('status'), ops('status', '--json')])
  t.equal(text.exitCode, 0, text.stderr)
  t.match(text.stdout, `gateway running on ${chain.dataDir} (pid ${gateway.pid})`)
  t.match(text.stdout, 'chain ID: 793788')
  t.match(text.stdout, /graphql: +on/)
  t.match(text.stdout, /json_rpc: +http:\/\/127\.0\.0\.1:\d+\/rpc/)
  t.equal(json.exitCode, 0)
  const report = JSON.parse(json.stdout)
  const block = await rpc.call<{ number: string, hash: string }>('eth_getBlockByNumber', ['latest', false])
  t.equal(report.running, true)
  t.equal(report.chain_id, 793788)
  t.ok(report.head.number >= head && report.head.number <= Number(block.number))
  t.match(report.head.hash, /^0x[0-9a-f]{64}$/)
  // This instance's own key, from its keystore, and whether the chain's signers include it.
  const self = (await readSigner(chain.dataDir))!
  t.equal(report.signer, self)
  t.same((await rpc.call<string[]>('clique_getSigners', ['latest'])), [self.toLowerCase()])
  t.equal(report.authorized_signer, true)
  t.equal(report.signers, 1)
  t.match(text.stdout, `signer:   ${self} (authorized, one of the chain's 1 signer); sealing: yes`)
  t.equal(report.sealing, true)
  t.equal(report.indexer.role, 'writer')
  t.ok(report.indexer.head >= head)
  t.ok(report.database_bytes > 1_000_000)
  t.same(report.graphql, { configured: true, serving: true, restart_needed: false })
  t.same(report.rate_limits, { enabled: true, public_per_min: 100, premium_per_min: 1000, shared_through_redis: false })
  t.match(text.stdout, /rate limits: on: 100 a minute public, 1000 premium, counted in memory/)
  t.match(report.urls.rest, /\/api\/v2$/)
  t.match(report.version, /^\d+\.\d+\.\d+/)
  t.match(report.geth_version, /^Geth\/v1\.13\.15/)
})

t.test('status without DATA_DIR finds the installed service\'s gateway through its unit\'s environment file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tg-ops-service-'))
  t.teardown(async () => await rm(dir, { recursive: true, force: true }))
  const unitFile = join(dir, 'testnet-gateway.service')
  const envFile = join(dir, 'testnet-gateway.env')
  await writeFile(unitFile, `[Service]\nEnvironmentFile=${envFile}\n`)
  await writeFile(envFile, `# as install-service writes it\nDATA_DIR=${chain.dataDir}\nHOST=0.0.0.0\n`)
  const shell = { ...process.env, ...env, DATA_DIR: '' }
  const config = loadConfig((await withServiceEnvironment(shell, { unitFile, envFile: join(dir, 'absent.env') })).env)
  t.equal(config.dataDir, chain.dataDir)
  const lines: string[] = []
  t.equal(await runStatus(config, false, (line) => lines.push(line)), 0, lines.join('\n'))
  t.match(lines.join('\n'), `gateway running on ${chain.dataDir} (pid ${gateway.pid})`)
})

t.test('explorer-env reads the running gateway: its real port (PORT says 0), a transaction of its index for GraphiQL, summaries on, ads off', async (t) => {
  const result = await ops('explorer-env')
  t.equal(result.exitCode, 0, result.stderr)
  const env = Object.fromEntries(result.stdout.split('\n').filter((l) => l.startsWith('NEXT_PUBLIC_')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
  const served = new URL(gateway.url)
  t.equal(env.NEXT_PUBLIC_API_PORT, served.port)
  t.equal(env.NEXT_PUBLIC_NETWORK_RPC_URL, `${served.origin}/rpc`)
  t.equal(env.NEXT_PUBLIC_STATS_API_HOST, served.origin)
  t.match(env.NEXT_PUBLIC_GRAPHIQL_TRANSACTION, /^0x[0-9a-f]{64}$/)
  const indexed = await db('transactions').where({ hash: Buffer.from(env.NEXT_PUBLIC_GRAPHIQL_TRANSACTION!.slice(2), 'hex') }).first()
  t.ok(indexed, 'a transaction the index holds')
  t.equal(env.NEXT_PUBLIC_TRANSACTION_INTERPRETATION_PROVIDER, 'blockscout')
  t.equal(env.NEXT_PUBLIC_AD_BANNER_PROVIDER, 'none')
  t.equal(env.NEXT_PUBLIC_AD_TEXT_PROVIDER, 'none')
})

t.test('faucet <address> [amount] sends from the faucet account and prints the mined transaction', async (t) => {
  const to = '0x00000000000000000000000000000000000fa0ce'
  const result = await ops('faucet', to, '2.5')
  t.equal(result.exitCode, 0, result.stderr)
  t.match(result.stdout, /sent 2\.5 coins from 0x[0-9a-fA-F]{40} to 0x00000000000000000000000000000000000fA0ce/i)
  const hash = /transaction (0x[0-9a-f]{64}) mined in block (\d+)/.exec(result.stdout)
  t.ok(hash, result.stdout)
  t.equal(BigInt(await rpc.call<string>('eth_getBalance', [to, 'latest'])), 2_500_000_000_000_000_000n)
  head = Number(hash![2])
  await waitFor('the gateway to index the faucet\'s block', async () => (await gateway.health()).body.indexer.head === head ? true : undefined)
  const bad = await ops('faucet', 'nonsense')
  t.equal(bad.exitCode, 2)
})

t.test('graphql off on a running gateway says a restart is needed, and status shows it', async (t) => {
  const off = await ops('graphql', 'off')
  t.equal(off.exitCode, 0, off.stderr)
  t.match(off.stdout, `restart needed: the running gateway (pid ${gateway.pid}) serves it on until restarted`)
  const report = JSON.parse((await ops('status', '--json')).stdout)
  t.same(report.graphql, { configured: false, serving: true, restart_needed: true })
  t.match((await ops('status')).stdout, /graphql: +on now, off configured: restart needed/)
  const on = await ops('graphql', 'on')
  t.match(on.stdout, 'already serves it on: no restart needed')
})

t.test('verify-index finds no mismatch on the running gateway\'s index', async (t) => {
  const result = await runOps(['verify-index'], { ...env, LOG_LEVEL: 'info' })
  t.equal(result.exitCode, 0, result.stderr)
  t.match(result.stdout, `node: the gateway's (pid ${gateway.pid}, endpoints.json)`)
  t.match(result.stderr, `using the node of the gateway running on DATA_DIR (pid ${gateway.pid}, endpoints.json)`)
  t.notMatch(result.stderr, 'GETH_RPC_URL', 'which is unset')
  t.match(result.stdout, `verified blocks 0..${head} (${head + 1} blocks): no mismatches`)
  t.same(mismatchLines(result), [])
})

t.test('verify-index with GETH_RPC_URL and DATABASE_URL needs nothing from DATA_DIR', async (t) => {
  const empty = await mkdtemp(join(tmpdir(), 'tg-ops-'))
  t.teardown(async () => await rm(empty, { recursive: true, force: true }))
  const result = await runOps(['verify-index'], { DATA_DIR: empty, GETH_RPC_URL: endpoints.geth_rpc_url, DATABASE_URL: endpoints.database_url, LOG_LEVEL: 'info' })
  t.equal(result.exitCode, 0, result.stderr)
  t.match(result.stdout, 'node: GETH_RPC_URL; database: DATABASE_URL')
  t.match(result.stderr, 'using the node at GETH_RPC_URL')
  const nothing = await runOps(['verify-index'], { DATA_DIR: empty, GETH_RPC_URL: '', DATABASE_URL: '' })
  t.equal(nothing.exitCode, 1)
  t.match(nothing.stderr, 'GW_ERR_OPS_DATA_DIR_EMPTY')
})

t.test('ops leaves a gateway that has not published endpoints.json alone', async (t) => {
  const file = join(chain.dataDir, ENDPOINTS_FILE)
  const saved = await readFile(file, 'utf8')
  await rm(file)
  t.teardown(async () => await writeFile(file, saved, { mode: 0o600 }))
  const result = await ops('verify-index')
  t.equal(result.exitCode, 1)
  t.match(result.stderr, `GW_ERR_GATEWAY_STARTING: A gateway (pid ${gateway.pid})`)
  t.equal((await gateway.health()).body.geth.status, 'ok', 'its Geth is untouched')
})

t.test('reindex refuses while the gateway holds the indexer lock', async (t) => {
  const result = await ops('reindex', '--from', '1')
  t.equal(result.exitCode, 1)
  t.match(result.stderr, 'GW_ERR_INDEXER_BUSY')
  t.match(result.stderr, 'stop the gateway, then run reindex again')
  t.equal(Number((await db('blocks').max({ n: 'number' }).first())!.n), head, 'nothing was deleted')
})

let damagedFrom = 0
t.test('verify-index reports a tampered index, one line per mismatch, and exits 1', async (t) => {
  const failed = await db('transactions').where('status', 0).orderBy('block_number').first('hash', 'block_number')
  const logged = await db('logs').where('block_number', '>', failed.block_number).orderBy('block_number').first('block_number', 'log_index')
  await db('transactions').where('hash', failed.hash).update({ status: 1 })
  await db('logs').where({ block_number: logged.block_number, log_index: logged.log_index }).delete()
  damagedFrom = Number(failed.block_number)
  const result = await ops('verify-index')
  t.equal(result.exitCode, 1)
  t.same(mismatchLines(result), [
    `block ${failed.block_number}: transaction 0x${failed.hash.toString('hex')} has status 1 in the index, 0 on the node`,
    `block ${logged.block_number}: ${await logCount(logged.block_number)} logs in the index, ${await logCount(logged.block_number) + 1} on the node`
  ])
  t.match(result.stdout, '2 mismatches in 2 blocks')
  const before = await ops('verify-index', '--to', String(damagedFrom - 1))
  t.equal(before.exitCode, 0, 'the blocks below the damage are fine')
  t.match(before.stdout, `verified blocks 0..${damagedFrom - 1}`)
})

t.test('with the gateway stopped, reindex --from repairs the index and verify-index passes', async (t) => {
  // Our connections would outlive the server they point at.
  await db.destroy()
  gateway.kill('SIGTERM')
  t.same(await gateway.exited, { code: 0, signal: null }, 'the gateway stops cleanly')
  t.equal(await readEndpoints(chain.dataDir), undefined, 'and removes endpoints.json')
  const reindex = await ops('reindex', '--from', String(damagedFrom))
  t.equal(reindex.exitCode, 0, reindex.stderr)
  t.match(reindex.stdout, 'node: Geth started from DATA_DIR; database: embedded PostgreSQL started from DATA_DIR')
  t.match(reindex.stdout, `deleted blocks ${damagedFrom}..${head}: ${head - damagedFrom + 1} blocks`)
  t.match(reindex.stdout, `indexed blocks ${damagedFrom}..${head}: ${head - damagedFrom + 1} blocks`)
  const verify = await ops('verify-index')
  t.equal(verify.exitCode, 0, verify.stdout + verify.stderr)
  t.match(verify.stdout, `verified blocks 0..${head} (${head + 1} blocks): no mismatches`)
  t.equal(await readFile(join(chain.dataDir, 'geth.pid'), 'utf8').catch(() => 'gone'), 'gone', 'ops stopped its Geth')
  t.equal(await readFile(join(chain.dataDir, 'postgres', 'postmaster.pid'), 'utf8').catch(() => 'gone'), 'gone', 'and its PostgreSQL')
})

t.test('status with no gateway running says so, shows what DATA_DIR holds and exits 3', async (t) => {
  const result = await ops('status')
  t.equal(result.exitCode, 3, result.stderr)
  t.match(result.stdout, `no gateway is running on ${chain.dataDir}`)
  t.match(result.stdout, `chain:    initialised (chain ID 793788, signer ${(await readSigner(chain.dataDir))!})`)
  const report = JSON.parse((await ops('status', '--json')).stdout)
  t.equal(report.running, false)
  t.equal(report.initialised, true)
  t.equal(report.rate_limits.enabled, true)
})

async function logCount (block: number): Promise<number> {
  return Number((await db('logs').where('block_number', block).count({ n: '*' }).first())!.n)
}
