// `npm run ops -- restore <dir>`: a backup into an empty DATA_DIR. The keys,
// genesis, settings and peers (join.json, the node key) are copied; `geth
// init` with the backup's genesis and `geth import` of its blocks rebuild the
// chain (every block re-executed); the database (DATABASE_URL, or embedded in
// DATA_DIR) is migrated by this version and the backup's rows copied in.
// Nothing runs afterwards: start the gateway.
import { chmod, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { execa } from 'execa'
import type { Config } from '../../core/config.ts'
import type { Logger } from '../../core/logger.ts'
import { pathExists } from '../../core/fs/path-exists.ts'
import { findGatewayOnDataDir, readEndpoints } from '../../core/endpoints.ts'
import { openDatabase } from '../../core/db/index.ts'
import { countRows, restoreDatabase } from '../../core/backup/database.ts'
import { findGeth } from '../../geth/install.ts'
import { PREIMAGE_ARGS } from '../../geth/args.ts'
import { MANIFEST_FILE, copyInstanceFiles, type BackupManifest } from './backup.ts'

export async function runRestore (config: Config, log: Logger, out: (line: string) => void, dir: string): Promise<number> {
  const manifest = JSON.parse(await readFile(join(dir, MANIFEST_FILE), 'utf8')) as BackupManifest
  await checkDataDirIsEmpty(config)
  await copyInstanceFiles(join(dir, 'files'), config.dataDir)
  await chmod(join(config.dataDir, 'keystore'), 0o700).catch(() => {})
  const gethDir = join(config.dataDir, 'geth')
  const bin = await findGeth({ bin: config.geth.bin, cacheDir: config.geth.cacheDir, log, env: config.childEnv })
  // Geth reads GETH_* variables as flags: it gets PATH and HOME only.
  const env = { PATH: config.childEnv.PATH ?? '/usr/bin:/bin', HOME: config.childEnv.HOME ?? '/' }
  const geth = async (args: string[]): Promise<void> => {
    const result = await execa(bin, args, { reject: false, all: true, extendEnv: false, env })
    if (result.exitCode !== 0) throw new Error(`geth ${args[0]} failed: ${String(result.all).slice(-2000)}`)
  }
  await geth(['init', ...PREIMAGE_ARGS, '--datadir', gethDir, join(config.dataDir, 'genesis.json')])
  // import takes no --cache.preimages (a node flag); init wrote the genesis preimages the indexer reads.
  await geth(['import', '--gcmode', config.geth.gcmode, '--datadir', gethDir, join(dir, 'chain.rlp')])
  out(`chain: blocks 0..${manifest.chain.head} imported into ${gethDir}`)

  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, log: log.child({ name: 'db' }) })
  try {
    const applied = new Set((await database.knex('knex_migrations').select('name')).map((r: { name: string }) => r.name))
    const unknown = manifest.migrations.filter((name) => !applied.has(name))
    if (unknown.length > 0) throw new Error(`the backup was taken by a newer version: migrations ${unknown.join(', ')} are unknown here`)
    if ((await database.knex('blocks').count({ n: '*' }).first())?.n !== '0') throw new Error('the database is not empty: restore needs an empty one')
    await restoreDatabase(database.url, join(dir, 'database'), { tables: manifest.tables })
    const counts = await countRows(database.url, Object.keys(manifest.tables))
    const differ = Object.keys(manifest.tables).filter((t) => counts[t] !== manifest.tables[t])
    if (differ.length > 0) throw new Error(`restored row counts differ in ${differ.join(', ')}`)
    out(`database: ${Object.keys(counts).length} tables, ${Object.values(counts).reduce((a, b) => a + b, 0)} rows restored (index head ${manifest.index_head ?? 'none'})`)
  } finally {
    await database.close()
  }
  out(`restored ${dir} into ${config.dataDir}: head ${manifest.chain.head} ${manifest.chain.hash}, signer ${manifest.chain.signer ?? 'unknown'}; start the gateway`)
  return 0
}

async function checkDataDirIsEmpty (config: Config): Promise<void> {
  if (await readEndpoints(config.dataDir) !== undefined || await findGatewayOnDataDir(config.dataDir) !== undefined) {
    throw new Error(`a gateway runs on ${config.dataDir}: restore into an empty DATA_DIR`)
  }
  for (const part of ['geth', 'postgres', 'keystore', 'genesis.json']) {
    if (await pathExists(join(config.dataDir, part))) throw new Error(`${config.dataDir} already holds ${part}: restore into an empty DATA_DIR`)
  }
}
