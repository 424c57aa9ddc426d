// `npm run ops -- backup <dir>`: a consistent backup of a running or stopped
// instance. The database first (one snapshot, core/backup/database.ts), then
// the chain up to the node's head at that moment (core/backup/chain.ts), so the
// chain always reaches the index; then the keys, genesis, config.json and the
// peers (join.json, the node key), and a manifest saying what was taken.
// Everything is private to the user who backs up (files 0600, directories
// 0700): the tables hold the API keys' hashes and their usage, and files/ the
// signer's, the faucet's and the node's keys.
import { chmod, cp, mkdir, readdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Config } from '../../core/config.ts'
import { pathExists } from '../../core/fs/path-exists.ts'
import { backupDatabase } from '../../core/backup/database.ts'
import { exportChain } from '../../core/backup/chain.ts'
import { PACKAGE_VERSION } from '../../core/version.ts'
import { JOIN_FILE } from '../../geth/join.ts'
import { nodeKeyFile } from '../../geth/p2p.ts'
import type { OpsCommandContext } from './command.ts'

/**
 * What DATA_DIR holds besides Geth's and PostgreSQL's data: the instance's
 * identity and settings. join.json keeps a joined instance's peers and the
 * genesis hash it checks; the node key keeps its enode URL, which the other
 * nodes of the network dial (DATA_DIR/geth is Geth's --datadir).
 */
export const INSTANCE_FILES = ['keystore', 'signer.password', 'faucet.key', 'genesis.json', 'config.json', JOIN_FILE, nodeKeyFile('geth')]
export const MANIFEST_FILE = 'manifest.json'

export type BackupManifest = {
  version: string
  created_at: string
  chain: { head: number, hash: string, signer: string | null }
  index_head: number | null
  tables: Record<string, number>
  migrations: string[]
}

export const BACKUP_FILE_MODE = 0o600
export const BACKUP_DIR_MODE = 0o700

export async function runBackup ({ ops, out, signal }: OpsCommandContext, config: Config, dir: string): Promise<number> {
  await mkdir(dirname(dir), { recursive: true })
  await mkdir(dir, { recursive: true, mode: BACKUP_DIR_MODE })
  if ((await readdir(dir)).length > 0) throw new Error(`${dir} is not empty: back up into a new or empty directory`)
  // An empty directory made beforehand keeps its own mode otherwise.
  await chmod(dir, BACKUP_DIR_MODE)
  out(`backup: ${ops.source}`)
  await mkdir(join(dir, 'database'), { mode: BACKUP_DIR_MODE })
  const database = await backupDatabase(ops.databaseUrl, join(dir, 'database'), BACKUP_FILE_MODE)
  const chain = await exportChain(ops.rpc, join(dir, 'chain.rlp'), signal, BACKUP_FILE_MODE)
  const signers = await ops.rpc.call<string[]>('clique_getSigners', ['latest']).catch(() => [])
  await mkdir(join(dir, 'files'), { mode: BACKUP_DIR_MODE })
  await copyInstanceFiles(config.dataDir, join(dir, 'files'))
  // cp keeps the modes DATA_DIR had (genesis.json, config.json and keystore/ are not private there).
  await restrictModes(join(dir, 'files'))
  const manifest: BackupManifest = {
    version: PACKAGE_VERSION,
    created_at: new Date().toISOString(),
    chain: { ...chain, signer: signers[0] ?? null },
    index_head: database.indexHead,
    tables: database.tables,
    migrations: database.migrations
  }
  await writeFile(join(dir, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n', { mode: BACKUP_FILE_MODE })
  out(`chain: blocks 0..${chain.head} (head ${chain.hash}) read from the node into chain.rlp (geth export's format)`)
  out(`database: ${Object.keys(database.tables).length} tables, ${Object.values(database.tables).reduce((a, b) => a + b, 0)} rows copied in one snapshot (index head ${manifest.index_head ?? 'none'})`)
  out(`keys, genesis, settings and peers: ${INSTANCE_FILES.join(', ')}`)
  out(`backup written to ${dir}`)
  return 0
}

/** Those of INSTANCE_FILES that `from` holds, into `to` at the same paths: backup's way and restore's. */
export async function copyInstanceFiles (from: string, to: string): Promise<void> {
  for (const name of INSTANCE_FILES) {
    if (!await pathExists(join(from, name))) continue
    // The node key's directories; backup's modes are set afterwards (restrictModes).
    await mkdir(dirname(join(to, name)), { recursive: true })
    await cp(join(from, name), join(to, name), { recursive: true, preserveTimestamps: true })
  }
}

async function restrictModes (dir: string): Promise<void> {
  await chmod(dir, BACKUP_DIR_MODE)
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) await restrictModes(path)
    else await chmod(path, BACKUP_FILE_MODE)
  }
}
