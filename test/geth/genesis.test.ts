import t from 'tap'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildCliqueExtraData, buildGenesis, readGenesisAlloc } from '../../geth/genesis.ts'
import { buildGethArgs } from '../../geth/args.ts'
import { getAddress } from 'ethers'

const A = '0x00000000000000000000000000000000000000Aa'
const B = '0x0000000000000000000000000000000000000001'

t.test('buildCliqueExtraData() is vanity + sorted signers + seal', async (t) => {
  const extra = buildCliqueExtraData([A, B])
  t.equal(extra.length, 2 + 2 * (32 + 40 + 65))
  t.equal(extra.slice(2 + 64, 2 + 64 + 40), B.slice(2), 'the lower address comes first')
  t.equal(extra.slice(2 + 64 + 40, 2 + 64 + 80), A.slice(2).toLowerCase())
})

t.test('buildGenesis() is chain 793788 with London and nothing later', async (t) => {
  const genesis = buildGenesis({ chainId: 793788, signer: A, cliquePeriod: 0, alloc: {} })
  t.equal(genesis.config.chainId, 793788)
  t.equal(genesis.config.londonBlock, 0)
  t.same(genesis.config.clique, { period: 0, epoch: 30000 })
  for (const key of ['shanghaiTime', 'cancunTime', 'terminalTotalDifficulty', 'terminalTotalDifficultyPassed']) {
    t.notOk(key in genesis.config, `${key} is not set`)
  }
  t.equal(genesis.difficulty, '0x1')
})

t.test('readGenesisAlloc() checksums keys and rejects what is not an alloc', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tg-alloc-'))
  const good = join(dir, 'good.json')
  await writeFile(good, JSON.stringify({ [A.slice(2).toLowerCase()]: { balance: '1000' } }))
  t.same(await readGenesisAlloc(good), { [getAddress(A.toLowerCase())]: { balance: '1000' } })
  for (const [name, content] of [['array', '[]'], ['not-json', '{'], ['bad-key', '{"0x12":{"balance":"1"}}'], ['no-balance', `{"${A}":{}}`]]) {
    const file = join(dir, `${name}.json`)
    await writeFile(file, content!)
    await t.rejects(readGenesisAlloc(file), { code: 'GW_ERR_GENESIS_ALLOC_INVALID' }, name!)
  }
})

t.test('buildGethArgs() keeps every RPC on loopback and turns discovery off by default', async (t) => {
  const args = buildGethArgs({ gethDir: '/d', keystoreDir: '/k', passwordFile: '/p', signer: A, chainId: 793788, httpPort: 1, wsPort: 2, authPort: 3, gcmode: 'archive', maxPeers: 0 })
  const value = (flag: string) => args[args.indexOf(flag) + 1]
  t.equal(value('--http.addr'), '127.0.0.1')
  t.equal(value('--ws.addr'), '127.0.0.1')
  t.equal(value('--authrpc.addr'), '127.0.0.1')
  t.equal(value('--gcmode'), 'archive')
  t.equal(value('--http.api'), 'eth,net,web3,debug,txpool,clique,miner')
  t.ok(args.includes('--nodiscover'))
  t.equal(value('--maxpeers'), '0')
  t.ok(args.includes('--ipcdisable'), 'no IPC socket for an unlocked signer')
  t.ok(args.includes('--txpool.nolocals'), 'transactions sent through the RPC get no local exemptions')
})

t.test('buildGethArgs() listens for peers on P2P_PORT only, names the external IP, reads static peers from --config, seals only a genesis signer', async (t) => {
  const base = { gethDir: '/d', keystoreDir: '/k', passwordFile: '/p', signer: A, chainId: 793788, httpPort: 1, wsPort: 2, authPort: 3, gcmode: 'archive', maxPeers: 0 } as const
  const value = (args: string[], flag: string) => args[args.indexOf(flag) + 1]
  const loopback = buildGethArgs(base)
  t.equal(value(loopback, '--port'), '0', 'no P2P_PORT: a random port and --maxpeers 0, nobody connects')
  t.equal(value(loopback, '--nat'), 'none')
  t.notOk(loopback.includes('--config'))
  t.ok(loopback.includes('--mine'), 'sealing from the start by default')
  const open = buildGethArgs({ ...base, maxPeers: 25, p2pPort: 30303, externalIp: '203.0.113.7', configFile: '/d/geth.toml', seal: false })
  t.equal(value(open, '--port'), '30303')
  t.equal(value(open, '--maxpeers'), '25')
  t.ok(open.includes('--nodiscover'), 'discovery stays off with peers')
  t.equal(value(open, '--nat'), 'extip:203.0.113.7')
  t.equal(value(open, '--config'), '/d/geth.toml')
  t.notOk(open.includes('--mine'), 'a joined key waits to be voted in')
  t.equal(value(open, '--miner.etherbase'), A)
  t.equal(value(open, '--unlock'), A, 'unlocked, so the miner can start once it is a signer')
})
