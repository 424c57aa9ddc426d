// A real `cast` (Foundry 1.7 from the @foundry-rs/cast package) against a
// premium key's RPC URL, as a user runs it: `cast run` replays a mined
// transaction from the gateway's reads, and `cast rpc debug_traceTransaction`
// asks for its trace; the same trace through a public URL is refused with
// -32004. Skipped, saying why, only where the binary cannot run.
import t from 'tap'
import { access, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { build } from '../../helper.ts'
import { createSender } from '../../support/verify.ts'
import { LOGGER_INIT_CODE } from '../../support/blocks.ts'
import { createApiKey } from '../../../core/api-keys/store.ts'

/**
 * The platform package's binary where it is (linux-amd64 here): the npm
 * wrapper (node_modules/.bin/cast) exits 0 whatever cast's exit code was.
 */
const NATIVE_CAST = fileURLToPath(new URL(`../../../node_modules/@foundry-rs/cast-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}/bin/cast`, import.meta.url))
const CAST = await access(NATIVE_CAST).then(() => NATIVE_CAST, () => fileURLToPath(new URL('../../../node_modules/.bin/cast', import.meta.url)))

const home = await mkdtemp(join(tmpdir(), 'tg-cast-'))
t.teardown(async () => await rm(home, { recursive: true, force: true }))
// A HOME of its own: cast keeps nothing of the machine's, and FOUNDRY_OFFLINE keeps it off the network.
const cast = async (args: string[]) => await execa(CAST, args, {
  env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local/share'), FOUNDRY_OFFLINE: 'true', FOUNDRY_DISABLE_NIGHTLY_WARNING: '1', NO_COLOR: '1' },
  reject: false,
  timeout: 120_000
})

const version = await cast(['--version'])
const cannotRun = version.exitCode === 0
  ? false
  : `cast cannot run here (${CAST}: ${version.failed ? version.shortMessage : version.stderr}); install @foundry-rs/cast with its platform package`

t.test('cast against a premium key\'s RPC URL', { skip: cannotRun }, async (t) => {
  // Limits on: the gateway checks the key in the URL.
  const { app, url, chain } = await build(t, { RATE_LIMIT_ENABLED: 'true' })
  const sender = createSender(app.geth.rpc, chain.account)
  const logger = await sender.deploy(LOGGER_INIT_CODE)
  const loggerCall = await sender.send(logger.address, '0x')
  const { key } = await createApiKey(app.db.knex, { label: 'cast', tier: 'premium' })
  const premiumUrl = `${url}/rpc/${key}`

  t.test('cast run replays a mined transaction', async (t) => {
    const run = await cast(['run', loggerCall, '--rpc-url', premiumUrl])
    t.equal(run.exitCode, 0, run.exitCode === 0 ? 'cast run exits 0' : `${run.stdout}\n${run.stderr}`)
    t.match(run.stdout, /Transaction successfully executed/)
    t.match(run.stdout.toLowerCase(), logger.address, 'the trace names the contract called')
    const receipt = await app.geth.rpc.call<{ gasUsed: string }>('eth_getTransactionReceipt', [loggerCall])
    t.match(run.stdout, new RegExp(`Gas used: ${BigInt(receipt.gasUsed)}\\b`), 'the gas the chain charged')
  })

  t.test('cast rpc debug_traceTransaction answers the trace, and is refused -32004 through the public URL', async (t) => {
    const options = '{"tracer":"callTracer"}'
    const traced = await cast(['rpc', 'debug_traceTransaction', loggerCall, options, '--rpc-url', premiumUrl])
    t.equal(traced.exitCode, 0, traced.exitCode === 0 ? 'cast rpc exits 0' : traced.stderr)
    t.same(JSON.parse(traced.stdout), await app.geth.rpc.call('debug_traceTransaction', [loggerCall, { tracer: 'callTracer' }]))
    const refused = await cast(['rpc', 'debug_traceTransaction', loggerCall, options, '--rpc-url', `${url}/rpc`])
    t.not(refused.exitCode, 0, 'cast rpc fails')
    t.match(refused.stderr, /-32004/)
    t.match(refused.stderr, /debug_traceTransaction is served to premium API keys only/)
  })
})
