// A testnet of several machines on one: an instance publishes its genesis and
// enode, a second one joins with JOIN_URL (its own Geth, its own index), the
// signers vote it in through ops signers, and a data directory of another
// chain is refused. Real Geth, real PostgreSQL; period 1 keeps blocks coming.
import t from 'tap'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import pino from 'pino'
import { build, buildOn, buildTestConfig, postRpc, testConfig } from '../helper.ts'
import { findFreePort } from '../../core/net/free-port.ts'
import { loadConfig } from '../../core/config.ts'
import { createRpcClient } from '../../core/rpc/client.ts'
import { createGethNode } from '../../geth/node.ts'
import { findGeth } from '../../geth/install.ts'
import { runSigners } from '../../scripts/ops/signers.ts'
import { runStatus, type StatusReport } from '../../scripts/ops/status.ts'
import { writeEndpoints } from '../../core/endpoints.ts'
import { createTestChainFiles } from '../support/chain.ts'
import { hashAt, head, until } from '../support/node-wait.ts'

const p2pPort = await findFreePort()
const first = await build(t, { CLIQUE_PERIOD: '1', P2P_PORT: String(p2pPort) })
const firstRpc = first.app.geth.rpc

t.test('GET /genesis.json is the file geth init read, byte for byte', async (t) => {
  const response = await fetch(first.url + '/genesis.json')
  t.equal(response.status, 200)
  t.match(response.headers.get('content-type'), /^application\/json/)
  t.same(Buffer.from(await response.arrayBuffer()), await readFile(join(first.config.dataDir, 'genesis.json')))
})

t.test('GET /api/v2/network names the chain, its genesis hash and our Geth\'s enode on P2P_PORT', async (t) => {
  const response = await fetch(first.url + '/api/v2/network')
  t.equal(response.status, 200)
  const body = await response.json() as { chain_id: number, genesis_hash: string, enodes: string[], signer: string }
  t.equal(body.chain_id, 793788)
  t.equal(body.genesis_hash, (await hashAt(firstRpc, 0)).toLowerCase())
  t.equal(body.enodes.length, 1)
  t.match(body.enodes[0], new RegExp(`^enode://[0-9a-f]{128}@127\\.0\\.0\\.1:${p2pPort}$`))
  t.equal(body.signer, first.app.geth.keys!.signer)
})

t.test('the public JSON-RPC endpoint refuses clique_ methods (votes go through ops on loopback only)', async (t) => {
  for (const method of ['clique_propose', 'clique_discard', 'clique_getSigners']) {
    const { json } = await postRpc(first.url, { jsonrpc: '2.0', id: 1, method, params: [first.app.geth.keys!.signer, true] })
    t.ok(json.error, `${method} refused`)
  }
})

t.test('JOIN_URL: a second instance takes the genesis and peers, syncs the same chain, indexes it, seals only once voted in', async (t) => {
  await until('a few blocks on the first', async () => await head(firstRpc) >= 3)
  const second = await buildOn(t, await buildTestConfig(t, { JOIN_URL: first.url }))
  const secondRpc = second.app.geth.rpc
  t.same(await readFile(join(second.config.dataDir, 'genesis.json')), await readFile(join(first.config.dataDir, 'genesis.json')), 'the published genesis, byte for byte')
  const target = await head(firstRpc)
  await until('the second synced', async () => await head(secondRpc) >= target)
  for (let n = 0; n <= target; n++) t.equal(await hashAt(secondRpc, n), await hashAt(firstRpc, n), `block ${n}`)
  // Its own index, from its own node.
  const indexed = await until('the second indexed', async () => {
    const response = await fetch(`${second.url}/api/v2/blocks/${target}`)
    return response.status === 200 ? await response.json() as { hash: string } : undefined
  })
  t.equal(indexed.hash, await hashAt(firstRpc, target))

  const self = second.app.geth.keys!.signer
  // Geth writes addresses in lower case.
  const selfLower = self.toLowerCase()
  t.notOk((await firstRpc.call<string[]>('clique_getSigners')).includes(selfLower), 'the joined key is no signer')
  t.equal(await secondRpc.call('eth_mining'), false, 'and does not try to seal')
  // ops status on the second, found through endpoints.json as `npm start` writes it.
  await writeEndpoints(second.config.dataDir, { pid: process.pid, geth_rpc_url: secondRpc.url, database_url: second.config.databaseUrl!, gateway_url: second.url })
  const secondStatus = async (): Promise<{ report: StatusReport, text: string }> => {
    const config = loadConfig({ ...process.env, DATA_DIR: second.config.dataDir })
    const json: string[] = []
    const text: string[] = []
    await runStatus(config, true, (line) => json.push(line))
    await runStatus(config, false, (line) => text.push(line))
    return { report: JSON.parse(json.join('\n')) as StatusReport, text: text.join('\n') }
  }
  const before = await secondStatus()
  t.match(before.report, { signer: self, authorized_signer: false, signers: 1 }, 'status: its own key, not authorized')
  t.match(before.text, `signer:   ${self} (not authorized: the chain's signers vote it in with npm run ops -- signers propose ${self}); sealing: no`)

  // ops signers on the first (its Geth's private RPC, as endpoints.json names it).
  const opsConfig = loadConfig({ ...process.env, DATA_DIR: first.config.dataDir, GETH_RPC_URL: firstRpc.url })
  const lines: string[] = []
  const out = (line: string): void => { lines.push(line) }
  t.equal(await runSigners(opsConfig, { name: 'signers', action: 'propose', address: self }, out), 0)
  t.match(lines.join('\n'), `voted to add ${self}`)
  await until('the second voted in', async () => (await firstRpc.call<string[]>('clique_getSigners')).includes(selfLower))
  await until('the second sealing', async () => await secondRpc.call('eth_mining') === true, 15_000)
  const sealedBySecond = await until('a block sealed by the second', async () => {
    const n = await head(secondRpc)
    const signer = await secondRpc.call<string>('clique_getSigner', ['0x' + n.toString(16)])
    return signer.toLowerCase() === self.toLowerCase() ? n : undefined
  })
  t.ok(sealedBySecond > target)
  const after = await secondStatus()
  t.match(after.report, { signer: self, authorized_signer: true, signers: 2 }, 'status: its own key, authorized')
  t.match(after.text, `signer:   ${self} (authorized, one of the chain's 2 signers); sealing: yes`)

  lines.length = 0
  t.equal(await runSigners(opsConfig, { name: 'signers', action: 'list' }, out), 0)
  t.match(lines.join('\n'), 'signers (2):')
  t.match(lines.join('\n'), selfLower)
  // Geth keeps a vote that passed among its proposals (never casting it again) until it is discarded.
  t.match(lines.join('\n'), `votes (1), kept until discarded:\n  add ${selfLower}`)

  // The command line reaches the same code: npm run ops -- signers.
  const cli = await execa('node', ['--import', 'tsx', 'scripts/ops.ts', 'signers'], { env: { ...process.env, DATA_DIR: first.config.dataDir, GETH_RPC_URL: firstRpc.url, LOG_LEVEL: 'warn' }, reject: false })
  t.equal(cli.exitCode, 0, cli.stderr)
  t.match(cli.stdout, 'signers (2):')

  // Two signers: removing one needs both votes, so the first's stays pending until discarded.
  lines.length = 0
  t.equal(await runSigners(opsConfig, { name: 'signers', action: 'remove', address: self }, out), 0)
  t.same(await firstRpc.call('clique_proposals'), { [selfLower]: false })
  t.equal(await runSigners(opsConfig, { name: 'signers', action: 'list' }, out), 0)
  t.match(lines.join('\n'), `remove ${selfLower}`)
  t.equal(await runSigners(opsConfig, { name: 'signers', action: 'discard', address: self }, out), 0)
  t.same(await firstRpc.call('clique_proposals'), {})

  lines.length = 0
  const secondOps = loadConfig({ ...process.env, DATA_DIR: second.config.dataDir, GETH_RPC_URL: secondRpc.url })
  t.equal(await runSigners(secondOps, { name: 'signers', action: 'self' }, out), 0)
  t.same(lines, [self, 'a signer of the chain'])
})

t.test('a joined data directory starts while JOIN_URL does not answer, from the genesis hash and peers kept in join.json', async (t) => {
  const dataDir = (await buildTestConfig(t)).config.dataDir
  const log = pino({ level: 'silent' })
  const joined = await createGethNode({ config: loadConfig({ ...process.env, DATA_DIR: dataDir, JOIN_URL: first.url }), log })
  await joined.start()
  await joined.stop()
  const saved = JSON.parse(await readFile(join(dataDir, 'join.json'), 'utf8')) as { genesis_hash: string, enodes: string[] }
  t.equal(saved.genesis_hash, (await hashAt(firstRpc, 0)).toLowerCase())
  const closed = `http://127.0.0.1:${await findFreePort()}`
  const again = await createGethNode({ config: loadConfig({ ...process.env, DATA_DIR: dataDir, JOIN_URL: closed }), log })
  await again.start()
  t.teardown(async () => await again.stop())
  const target = await head(firstRpc)
  await until('synced from the kept peers', async () => await head(again.rpc) >= target)
  t.equal(await hashAt(again.rpc, target), await hashAt(firstRpc, target))
  // A fresh data directory has nothing kept: JOIN_URL must answer.
  const fresh = (await buildTestConfig(t)).config.dataDir
  await t.rejects(createGethNode({ config: loadConfig({ ...process.env, DATA_DIR: fresh, JOIN_URL: closed }), log }), { code: 'GW_ERR_JOIN_FAILED' })
})

t.test('JOIN_URL with INDEXER_ENABLED=false: an API-only instance on its own node serves the first\'s PostgreSQL', async (t) => {
  const chain = await createTestChainFiles(t)
  const apiOnly = await buildOn(t, { config: testConfig(chain, first.config.databaseUrl!, { JOIN_URL: first.url, INDEXER_ENABLED: 'false' }), chain })
  t.equal(apiOnly.app.indexer.status().enabled, false)
  const target = await head(firstRpc)
  await until('its node synced', async () => await head(apiOnly.app.geth.rpc) >= target)
  const indexed = await until('the first indexed the block', async () => {
    const response = await fetch(`${first.url}/api/v2/blocks/${target}`)
    return response.status === 200 ? await response.json() as { hash: string } : undefined
  })
  const served = await (await fetch(`${apiOnly.url}/api/v2/blocks/${target}`)).json() as { hash: string }
  t.equal(served.hash, indexed.hash, 'the same block from the shared index')
  t.equal(served.hash, await hashAt(apiOnly.app.geth.rpc, target), 'and its own node has it')
})

t.test('an unmodified geth init genesis.json && geth --bootnodes <enode> syncs the same chain', async (t) => {
  const bin = await findGeth({ bin: first.config.geth.bin, cacheDir: first.config.geth.cacheDir, log: pino({ level: 'silent' }), env: first.config.childEnv })
  const dir = await mkdtemp(join(tmpdir(), 'tg-plain-geth-'))
  t.teardown(async () => await rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'genesis.json'), Buffer.from(await (await fetch(first.url + '/genesis.json')).arrayBuffer()))
  const { enodes } = await (await fetch(first.url + '/api/v2/network')).json() as { enodes: string[] }
  await execa(bin, ['init', '--datadir', join(dir, 'data'), join(dir, 'genesis.json')])
  const [httpPort, authPort] = [await findFreePort(), await findFreePort()]
  // As docs/network.md shows it, with every port on loopback or random for the test.
  const plain = execa(bin, ['--datadir', join(dir, 'data'), '--networkid', '793788', '--bootnodes', enodes[0]!,
    '--port', '0', '--nat', 'none', '--ipcdisable', '--http', '--http.addr', '127.0.0.1', '--http.port', String(httpPort),
    '--authrpc.addr', '127.0.0.1', '--authrpc.port', String(authPort)], { reject: false, stdio: 'ignore' })
  t.teardown(async () => { plain.kill('SIGTERM'); await plain })
  const plainRpc = createRpcClient({ url: `http://127.0.0.1:${httpPort}`, timeoutMs: 5000 })
  t.teardown(async () => await plainRpc.close())
  const target = await head(firstRpc)
  await until('the plain geth synced', async () => await head(plainRpc) >= target)
  for (let n = 0; n <= target; n++) {
    if (await hashAt(plainRpc, n) !== await hashAt(firstRpc, n)) t.fail(`block ${n} differs`)
  }
  t.pass(`blocks 0..${target} have the gateway's hashes`)
})

t.test('signers refuses without a running node: votes live in its memory', async (t) => {
  const chain = await createTestChainFiles(t)
  await t.rejects(runSigners(loadConfig({ ...process.env, DATA_DIR: chain.dataDir }), { name: 'signers', action: 'list' }, () => {}), { code: 'GW_ERR_OPS_NO_RUNNING_NODE' })
})

t.test('JOIN_URL on a data directory of another chain is refused (its genesis hash differs)', async (t) => {
  const chain = await createTestChainFiles(t)
  const log = pino({ level: 'silent' })
  // Initialises a chain of its own (another signer, so another genesis).
  await createGethNode({ config: loadConfig({ ...process.env, ...chain.env }), log })
  const node = await createGethNode({ config: loadConfig({ ...process.env, ...chain.env, JOIN_URL: first.url }), log })
  await t.rejects(node.start(), { code: 'GW_ERR_GENESIS_MISMATCH' })
  await node.stop()
})
