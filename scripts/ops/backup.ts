// `npm run ops -- backup <dir>`: a consistent backup of a running or stopped
// instance. The database first (one snapshot, core/backup/database.ts), then
// the chain up to the node's head at that moment (core/backup/chain.ts), so the
// chain always reaches the index; then the keys, genesis and config.json, and
// a manifest saying what was taken.
import { cp, mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Config } from '../../core/config.ts'
import { pathExists } from '../../core/fs/path-exists.ts'
import { backupDatabase } from '../../core/backup/database.ts'
import { exportChain } from '../../core/backup/chain.ts'
import { PACKAGE_VERSION } from '../../core/version.ts'
import type { OpsCommandContext } from './command.ts'

/** What DATA_DIR holds besides Geth's and PostgreSQL's data: the instance's identity and settings. */
export const INSTANCE_FILES = ['keystore', 'signer.password', 'faucet.key', 'genesis.json', 'config.json']
export const MANIFEST_FILE = 'manifest.json'

export type BackupManifest = {
  version: string
  created_at: string
  chain: { head: number, hash: string, signer: string | null }
  index_head: number | null
  tables: Record<string, number>
  migrations: string[]
}

export async function runBackup ({ ops, out, signal }: OpsCommandContext, config: Config, dir: string): Promise<number> {
  await mkdir(dir, { recursive: true })
  if ((await readdir(dir)).length > 0) throw new Error(`${dir} is not empty: back up into a new or empty directory`)
  out(`backup: ${ops.source}`)
  await mkdir(join(dir, 'database'))
  const database = await backupDatabase(ops.databaseUrl, join(dir, 'database'))
  const chain = await exportChain(ops.rpc, join(dir, 'chain.rlp'), signal)
  const signers = await ops.rpc.call<string[]>('clique_getSigners', ['latest']).catch(() => [])
  await mkdir(join(dir, 'files'))
  for (const name of INSTANCE_FILES) {
    if (await pathExists(join(config.dataDir, name))) await cp(join(config.dataDir, name), join(dir, 'files', name), { recursive: true, preserveTimestamps: true })
  }
  const manifest: BackupManifest = {
    version: PACKAGE_VERSION,
    created_at: new Date().toISOString(),
    chain: { ...chain, signer: signers[0] ?? null },
    index_head: database.indexHead,
    tables: database.tables,
    migrations: database.migrations
  }
  await writeFile(join(dir, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n')
  out(`chain: blocks 0..${chain.head} (head ${chain.hash}) read from the node into chain.rlp (geth export's format)`)
  out(`database: ${Object.keys(database.tables).length} tables, ${Object.values(database.tables).reduce((a, b) => a + b, 0)} rows copied in one snapshot (index head ${manifest.index_head ?? 'none'})`)
  out(`keys, genesis and settings: ${INSTANCE_FILES.join(', ')}`)
  out(`backup written to ${dir}`)
  return 0
}
