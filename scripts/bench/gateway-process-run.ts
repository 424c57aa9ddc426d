// A gateway process for a benchmark that reads its CPU from /proc
// (bench:runtime, bench:rpc-cpu): the real gateway on a throwaway chain
// (clique period 0) in a temporary DATA_DIR, on a scratch database of
// DATABASE_URL's server (embedded PostgreSQL when unset), with rate limits
// off, since the load comes from one address. Everything goes on `cleanups`.
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createScratchDatabase } from '../../core/db/scratch.ts'
import { startGatewayProcess, type GatewayProcess, type GatewayProcessOptions } from '../lib/gateway-process.ts'

export async function startBenchGatewayProcess (name: string, cleanups: Array<() => unknown>, env: Record<string, string>, options: GatewayProcessOptions): Promise<GatewayProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), `tg-bench-${name}-`))
  // Embedded PostgreSQL runs as another user when started as root and must reach its directory.
  await chmod(dataDir, 0o755)
  cleanups.push(async () => await rm(dataDir, { recursive: true, force: true }))
  let databaseUrl = ''
  if (process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '') {
    const database = await createScratchDatabase(process.env.DATABASE_URL, `tg_bench_${name.replace(/\W/g, '_')}`)
    cleanups.push(database.drop)
    databaseUrl = database.url
  }
  const teardown = { teardown: (fn: () => unknown) => { cleanups.push(fn) } }
  return await startGatewayProcess(teardown, {
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    GETH_RPC_URL: '',
    CLIQUE_PERIOD: '0',
    PORT: '0',
    HOST: '127.0.0.1',
    RATE_LIMIT_ENABLED: 'false',
    ...env
  }, options)
}
