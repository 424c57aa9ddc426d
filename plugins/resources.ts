// What the app needs before Fastify is built: the database (embedded
// PostgreSQL initialised, started and migrated) and the node (Geth found or
// built, its chain initialised and started). On a first start that can take
// minutes (Go builds Geth), so it runs here, before any plugin: Fastify bounds
// each plugin's start by its plugin timeout, and preparation must not be. The
// db and geth plugins then only decorate what is ready and close it on close.
import type { Config } from '../core/config.ts'
import type { Logger } from '../core/logger.ts'
import { bindDatabaseToChain, openDatabase, type Database } from '../core/db/index.ts'
import { createGethNode, type GethNode } from '../geth/node.ts'
import { ensureDataDir } from '../core/fs/data-dir.ts'

export type AppResources = Readonly<{ database: Database, node: GethNode }>

export type OpenResourcesOptions = {
  log: Logger
  /** Aborting stops preparation where it is (a Geth build is ended) and closes what was opened. */
  signal?: AbortSignal | undefined
}

export async function openResources (config: Config, { log, signal }: OpenResourcesOptions): Promise<AppResources> {
  await ensureDataDir(config.dataDir)
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, poolMax: config.databasePoolMax, log: log.child({ name: 'db' }) })
  let node: GethNode | undefined
  try {
    signal?.throwIfAborted()
    node = await createGethNode({ config, log: log.child({ name: 'geth' }), signal })
    signal?.throwIfAborted()
    await node.start()
    const genesis = await node.rpc.call<{ hash: string }>('eth_getBlockByNumber', ['0x0', false])
    await bindDatabaseToChain(database.knex, config.chainId, genesis.hash)
    signal?.throwIfAborted()
    return { database, node }
  } catch (err) {
    await node?.stop()
    await database.close()
    throw err
  }
}

/** Closes in the reverse order of opening: the node, then the database. */
export async function closeResources ({ database, node }: AppResources): Promise<void> {
  await node.stop()
  await database.close()
}
