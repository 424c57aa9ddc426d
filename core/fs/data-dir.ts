// DATA_DIR holds the node's keys, the faucet's key and embedded PostgreSQL's
// password: it is made (with any missing parents) before anything is written
// into it, readable by its owner only. A directory that already exists keeps
// the mode its operator gave it.
import { mkdir } from 'node:fs/promises'

export const DATA_DIR_MODE = 0o700

export async function ensureDataDir (dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: DATA_DIR_MODE })
}
