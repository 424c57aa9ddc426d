// What an ops command works on: the node and the database. GETH_RPC_URL and
// DATABASE_URL win; then the endpoints a running gateway published in
// DATA_DIR/endpoints.json; otherwise ops starts Geth and embedded PostgreSQL
// from DATA_DIR itself, as the gateway would, and stops them in close().
import { pathExists } from '../../core/fs/path-exists.ts'
import { join } from 'node:path'
import type { Knex } from 'knex'
import type { Config } from '../../core/config.ts'
import type { Logger } from '../../core/logger.ts'
import type { RpcClient } from '../../core/rpc/client.ts'
import { bindDatabaseToChain, openDatabase } from '../../core/db/index.ts'
import { findGatewayOnDataDir, readEndpoints } from '../../core/endpoints.ts'
import { GatewayStartingError, OpsDataDirEmptyError } from '../../core/errors.ts'
import { createGethNode } from '../../geth/node.ts'

/** A command needs a few connections: ranged reads side by side, the indexer's writes. */
const OPS_POOL_MAX = 4

export type OpsContext = {
  db: Knex
  /** For the indexer lock's own connection. */
  databaseUrl: string
  rpc: RpcClient
  /** Where the node and the database came from, for the operator. */
  source: string
  close (): Promise<void>
}

export async function openOpsContext (config: Config, log: Logger): Promise<OpsContext> {
  const gateway = await readEndpoints(config.dataDir)
  const databaseUrl = config.databaseUrl ?? gateway?.database_url
  const gethRpcUrl = config.geth.rpcUrl ?? gateway?.geth_rpc_url
  await checkDataDirIsOurs(config, { needsNode: gethRpcUrl === undefined, needsDatabase: databaseUrl === undefined })
  const closers: Array<() => Promise<void>> = []
  const close = async (): Promise<void> => {
    for (const closer of closers.reverse()) await closer().catch((err: unknown) => log.warn({ err }, 'closing failed'))
  }
  try {
    const database = await openDatabase({ url: databaseUrl, dataDir: config.dataDir, log: log.child({ name: 'db' }), poolMax: OPS_POOL_MAX })
    closers.push(database.close)
    const node = await createGethNode({
      config: { ...config, geth: { ...config.geth, rpcUrl: gethRpcUrl } },
      log: log.child({ name: 'geth' }),
      ...(config.geth.rpcUrl === undefined && gateway !== undefined ? { externalNode: `the node of the gateway running on DATA_DIR (pid ${gateway.pid}, endpoints.json)` } : {})
    })
    await node.start()
    closers.push(node.stop)
    // The same guard as the gateway's: never compare or write one chain's index against another chain.
    const genesis = await node.rpc.call<{ hash: string }>('eth_getBlockByNumber', ['0x0', false])
    await bindDatabaseToChain(database.knex, config.chainId, genesis.hash)
    return { db: database.knex, databaseUrl: database.url, rpc: node.rpc, source: describeSource(config, gateway?.pid), close }
  } catch (err) {
    await close()
    throw err
  }
}

/** The database alone, found as openOpsContext finds it: for commands that need no node (keys). */
export async function openOpsDatabase (config: Config, log: Logger): Promise<{ db: Knex, close (): Promise<void> }> {
  const databaseUrl = config.databaseUrl ?? (await readEndpoints(config.dataDir))?.database_url
  await checkDataDirIsOurs(config, { needsNode: false, needsDatabase: databaseUrl === undefined })
  const database = await openDatabase({ url: databaseUrl, dataDir: config.dataDir, log: log.child({ name: 'db' }), poolMax: OPS_POOL_MAX })
  return { db: database.knex, close: database.close }
}

/**
 * Starting Geth or PostgreSQL on DATA_DIR stops what already runs there, so a
 * gateway that has not published its endpoints yet must be left alone; and an
 * empty DATA_DIR would get a brand-new chain, which nobody wants to verify.
 */
async function checkDataDirIsOurs (config: Config, { needsNode, needsDatabase }: { needsNode: boolean, needsDatabase: boolean }): Promise<void> {
  if (!needsNode && !needsDatabase) return
  const owner = await findGatewayOnDataDir(config.dataDir)
  if (owner !== undefined) throw new GatewayStartingError(String(owner), config.dataDir)
  if (needsNode && !await pathExists(join(config.dataDir, 'geth', 'geth', 'chaindata'))) {
    throw new OpsDataDirEmptyError(config.dataDir, 'chain (geth/geth/chaindata)')
  }
  if (needsDatabase && !await pathExists(join(config.dataDir, 'postgres', 'PG_VERSION'))) {
    throw new OpsDataDirEmptyError(config.dataDir, 'embedded database (postgres/)')
  }
}

function describeSource (config: Config, gatewayPid: number | undefined): string {
  const from = (variable: string, setting: string | undefined, local: string): string =>
    setting !== undefined ? variable : gatewayPid !== undefined ? `the gateway's (pid ${gatewayPid}, endpoints.json)` : local
  const node = from('GETH_RPC_URL', config.geth.rpcUrl, 'Geth started from DATA_DIR')
  const database = from('DATABASE_URL', config.databaseUrl, 'embedded PostgreSQL started from DATA_DIR')
  return `node: ${node}; database: ${database}`
}
