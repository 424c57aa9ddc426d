// `npm run ops -- backup` of a running gateway while transactions flow, then
// `restore` into a new DATA_DIR: the same head hash, signer and row counts,
// the same join.json and node key (its peers and its enode URL), and the
// restored instance starts, dials those peers, seals on and verifies clean.
import t from 'tap'
import { chmod, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { createRpcClient } from '../../../core/rpc/client.ts'
import { readEndpoints } from '../../../core/endpoints.ts'
import { startEmbeddedPostgres } from '../../../core/db/embedded-postgres.ts'
import { countRows } from '../../../core/backup/database.ts'
import { CHAIN_ID } from '../../../core/config.ts'
import { JOIN_FILE, saveJoinInfo } from '../../../geth/join.ts'
import { enodeUrl, loadOrCreateNodeId, nodeKeyFile } from '../../../geth/p2p.ts'
import { createTestChainFiles } from '../../support/chain.ts'
import { sealBlocks, sendRound, sign, writeFundedAlloc } from '../../support/blocks.ts'
import { runOps, startGatewayProcess, waitFor } from '../../support/gateway-process.ts'
import type { BackupManifest } from '../../../scripts/ops/backup.ts'

const temporary = async (prefix: string): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  await chmod(dir, 0o755)
  t.teardown(async () => await rm(dir, { recursive: true, force: true }))
  return dir
}

const chain = await createTestChainFiles(t)
const { wallets, allocFile } = await writeFundedAlloc(t, 2)
const env = { ...chain.env, GENESIS_ALLOC: allocFile, DATABASE_URL: '', GETH_RPC_URL: '' }
const original = await startGatewayProcess(t, env)
const endpoints = (await readEndpoints(chain.dataDir))!
const rpc = createRpcClient({ url: endpoints.geth_rpc_url, timeoutMs: 10_000 })
t.teardown(() => rpc.close())
const { head } = await sealBlocks({ rpc, wallets, rounds: 4 })
await waitFor('the index to reach the head', async () => (await original.health()).body.indexer.head === head ? true : undefined)
// A cached summary: its table references transactions, whose truncation in a restore must not empty it again.
const [summarised] = (await rpc.call<{ transactions: string[] }>('eth_getBlockByNumber', ['0x' + head.toString(16), false])).transactions
const summary = await fetch(`${endpoints.gateway_url}/api/v2/transactions/${summarised}/summary`)
const summaryAnswer = { status: summary.status, text: await summary.text() }

// What a joined instance keeps in DATA_DIR/join.json: the peers it dials (here its own enode, on a port nobody
// listens on) and the genesis hash it checks at each start.
const genesisHash = (await rpc.call<{ hash: string }>('eth_getBlockByNumber', ['0x0', false])).hash
const peer = enodeUrl(await loadOrCreateNodeId(join(chain.dataDir, 'geth')), '127.0.0.1', 1)
await saveJoinInfo(chain.dataDir, { url: 'http://127.0.0.1:1', genesisText: '', genesisHash, chainId: CHAIN_ID, enodes: [peer] })
const [joinText, nodeKey] = await Promise.all([JOIN_FILE, nodeKeyFile('geth')].map(async (name) => await readFile(join(chain.dataDir, name), 'utf8')))

const backupDir = join(await temporary('tg-backup-'), 'backup')
let manifest: BackupManifest

t.test('backup of a running gateway with transactions flowing', async (t) => {
  const flow = { on: true }
  let nonce = Number(await rpc.call<string>('eth_getTransactionCount', [wallets[1]!.address, 'pending']))
  const flowing = (async () => {
    while (flow.on) await sendRound(rpc, [await sign(wallets[1]!, { to: wallets[0]!.address, value: 1n, gasLimit: 21_000n, nonce: nonce++ })])
  })()
  const result = await runOps(['backup', backupDir], env)
  flow.on = false
  await flowing
  t.equal(result.exitCode, 0, result.stderr)
  t.match(result.stdout, /chain: blocks 0\.\.\d+ \(head 0x[0-9a-f]{64}\)/)
  manifest = JSON.parse(await readFile(join(backupDir, 'manifest.json'), 'utf8'))
  t.ok(manifest.chain.head >= head)
  t.ok(manifest.index_head! <= manifest.chain.head, 'the chain reaches the index')
  t.ok(manifest.tables.blocks! >= head + 1)
  t.equal(summaryAnswer.status, 200, summaryAnswer.text)
  t.equal(manifest.tables.transaction_interpretations, 1, 'the cached summary')
  t.equal(manifest.chain.hash, (await rpc.call<{ hash: string }>('eth_getBlockByNumber', ['0x' + manifest.chain.head.toString(16), false])).hash)
  original.kill('SIGTERM')
  t.same(await original.exited, { code: 0, signal: null })
})

t.test('backup: every file is 0600 and every directory 0700 (the tables hold API keys\' hashes, files/ the keys)', async (t) => {
  const modes: Record<string, { mode: number, isDirectory: boolean }> = {}
  const walk = async (path: string, name: string): Promise<void> => {
    const info = await stat(path)
    modes[name] = { mode: info.mode & 0o777, isDirectory: info.isDirectory() }
    if (info.isDirectory()) for (const entry of await readdir(path)) await walk(join(path, entry), `${name}/${entry}`)
  }
  await walk(backupDir, '.')
  t.ok(Object.keys(modes).some((name) => name.startsWith('./database/') && name.endsWith('.copy')), 'the tables are there')
  t.ok(modes['./files/keystore']?.isDirectory && modes['./files/genesis.json'] && modes['./chain.rlp'] && modes['./manifest.json'])
  t.ok(modes['./files/join.json'] && modes['./files/geth/geth/nodekey'], 'join.json and the node key are there')
  for (const [name, { mode, isDirectory }] of Object.entries(modes)) {
    t.equal(mode.toString(8), isDirectory ? '700' : '600', name)
  }
})

t.test('restore into a new DATA_DIR brings back the head, the signer and the rows; the instance seals on', async (t) => {
  const dataDir = await temporary('tg-restored-')
  const restoredEnv = { ...env, DATA_DIR: dataDir }
  const result = await runOps(['restore', backupDir], restoredEnv)
  t.equal(result.exitCode, 0, result.stderr)
  t.match(result.stdout, `head ${manifest.chain.head} ${manifest.chain.hash}`)
  const again = await runOps(['restore', backupDir], restoredEnv)
  t.equal(again.exitCode, 1, 'never over an instance')
  t.match(again.stderr, 'restore into an empty DATA_DIR')

  const postgres = await startEmbeddedPostgres({ databaseDir: join(dataDir, 'postgres'), log: pino({ level: 'warn' }) })
  try {
    t.same(await countRows(postgres.url, Object.keys(manifest.tables)), manifest.tables, 'every table has the backup\'s row count')
  } finally {
    await postgres.stop()
  }

  t.equal(await readFile(join(dataDir, JOIN_FILE), 'utf8'), joinText, 'join.json is back')
  t.equal(await readFile(join(dataDir, nodeKeyFile('geth')), 'utf8'), nodeKey, 'the node key is back: the same enode URL')

  const restored = await startGatewayProcess(t, restoredEnv)
  t.match(await readFile(join(dataDir, 'geth.toml'), 'utf8'), peer, 'the restored node dials join.json\'s peers')
  const restoredRpc = createRpcClient({ url: (await readEndpoints(dataDir))!.geth_rpc_url, timeoutMs: 10_000 })
  t.teardown(() => restoredRpc.close())
  const block = await restoredRpc.call<{ hash: string }>('eth_getBlockByNumber', ['0x' + manifest.chain.head.toString(16), false])
  t.equal(block.hash, manifest.chain.hash, 'the same head hash')
  t.same((await restoredRpc.call<string[]>('clique_getSigners', ['latest'])).map((s) => s.toLowerCase()), [manifest.chain.signer!.toLowerCase()])
  const sealed = await sendRound(restoredRpc, [await sign(wallets[0]!, { to: wallets[1]!.address, value: 1n, gasLimit: 21_000n, nonce: Number(await restoredRpc.call<string>('eth_getTransactionCount', [wallets[0]!.address, 'pending'])) })])
  t.ok(sealed > manifest.chain.head, 'it seals on from the restored head')
  await waitFor('the restored index to reach the head', async () => (await restored.health()).body.indexer.head === sealed ? true : undefined)
  const verify = await runOps(['verify-index'], restoredEnv)
  t.equal(verify.exitCode, 0, verify.stdout + verify.stderr)
  t.match(verify.stdout, `verified blocks 0..${sealed} (${sealed + 1} blocks): no mismatches`)
})
