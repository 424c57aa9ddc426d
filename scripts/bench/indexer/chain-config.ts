// The gateway's configuration for a benchmark chain: our own Geth on a given
// DATA_DIR, whatever GETH_RPC_URL or DATA_DIR this shell happens to export.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Wallet } from 'ethers'
import { loadConfig, type Config } from '../../../core/config.ts'
import { senderAlloc } from './traffic.ts'

export const BENCH_LOG_LEVEL = 'warn'

export type ChainConfigOptions = {
  dataDir: string
  cliquePeriod: number
  /** Empty or undefined: embedded PostgreSQL in DATA_DIR (only buildApp opens a database from the config). */
  databaseUrl?: string
}

export function chainConfig ({ dataDir, cliquePeriod, databaseUrl }: ChainConfigOptions): Config {
  return loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    GENESIS_ALLOC: join(dataDir, 'alloc.json'),
    CLIQUE_PERIOD: String(cliquePeriod),
    GETH_RPC_URL: '',
    DEV_ACCOUNTS_FILE: '',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: BENCH_LOG_LEVEL,
    // The benchmarks' load comes from one address: the public limit would refuse nearly all of it.
    RATE_LIMIT_ENABLED: 'false',
    DATABASE_URL: databaseUrl ?? ''
  })
}

/** The GENESIS_ALLOC file chainConfig points at: every sender funded. */
export async function writeSenderAlloc (dataDir: string, senders: Wallet[]): Promise<void> {
  await writeFile(join(dataDir, 'alloc.json'), JSON.stringify(senderAlloc(senders)))
}
