// The signer's key lives in Geth's keystore with a random password file; the
// faucet's key is held by the gateway. Both are made on first start and reused.
import { mkdir, readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Wallet, encryptKeystoreJson, getAddress } from 'ethers'
import { readIfExists, writeSecret } from '../core/fs/secret-file.ts'

// scrypt N as Geth's --lightkdf: the password file sits beside the key, so a
// slow KDF would only slow every start without protecting anything.
const KEYSTORE_SCRYPT_N = 4096

export type NodeKeys = {
  /** Checksummed address of the clique signer. */
  signer: string
  keystoreDir: string
  passwordFile: string
  /** Funded in the genesis; operator scripts send from it. */
  faucet: Wallet
}

export function nodeKeyPaths (dataDir: string) {
  return {
    keystoreDir: join(dataDir, 'keystore'),
    passwordFile: join(dataDir, 'signer.password'),
    faucetKeyFile: join(dataDir, 'faucet.key')
  }
}

export async function loadOrCreateNodeKeys (dataDir: string): Promise<NodeKeys> {
  const { keystoreDir, passwordFile, faucetKeyFile } = nodeKeyPaths(dataDir)
  await mkdir(keystoreDir, { recursive: true, mode: 0o700 })
  const signer = (await readSignerAddress(keystoreDir)) ?? (await createSigner(keystoreDir, passwordFile))
  const faucet = new Wallet((await readIfExists(faucetKeyFile))?.trim() ?? (await createFaucetKey(faucetKeyFile)))
  return { signer, keystoreDir, passwordFile, faucet }
}

/** The signer's address in DATA_DIR's keystore, making none: undefined before a first start made it. */
export async function readSigner (dataDir: string): Promise<string | undefined> {
  try {
    return await readSignerAddress(nodeKeyPaths(dataDir).keystoreDir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
}

async function readSignerAddress (keystoreDir: string): Promise<string | undefined> {
  const files = (await readdir(keystoreDir)).filter((name) => name.startsWith('UTC--')).sort()
  if (files.length === 0) return undefined
  const json = JSON.parse(await readFile(join(keystoreDir, files[0]!), 'utf8')) as { address: string }
  return getAddress(json.address)
}

async function createSigner (keystoreDir: string, passwordFile: string): Promise<string> {
  const password = randomBytes(32).toString('hex')
  await writeSecret(passwordFile, password)
  const wallet = Wallet.createRandom()
  const json = await encryptKeystoreJson(
    { address: wallet.address, privateKey: wallet.privateKey },
    password,
    { scrypt: { N: KEYSTORE_SCRYPT_N } }
  )
  const stamp = new Date().toISOString().replace(/:/g, '-')
  // Geth's keystore naming; Geth loads every UTC-- file in the directory.
  await writeSecret(join(keystoreDir, `UTC--${stamp}--${wallet.address.slice(2).toLowerCase()}`), json)
  return wallet.address
}

async function createFaucetKey (file: string): Promise<string> {
  const key = Wallet.createRandom().privateKey
  await writeSecret(file, key + '\n')
  return key
}
