// Secrets kept in DATA_DIR (the signer's keystore password, the faucet key,
// embedded PostgreSQL's password): readable by their owner only, and never
// overwritten, so a start that finds one keeps using it.
import { chmod, readFile, writeFile } from 'node:fs/promises'

/** Creates `file` with mode 0600; fails if it exists. */
export async function writeSecret (file: string, text: string): Promise<void> {
  await writeFile(file, text, { mode: 0o600, flag: 'wx' })
  // The mode given to writeFile passes through the umask: set it outright.
  await chmod(file, 0o600)
}

export async function readIfExists (file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
}
