import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import type { Knex } from 'knex'
import type { RpcClient } from '../../core/rpc/client.ts'

/** How long the node must seal nothing for a chain to count as settled. */
const STABLE_MS = 250

/** An index and the node it follows: a test app's, or another instance's database and Geth. */
export type IndexedSource = { rpc: RpcClient, db: Knex, describe?: () => string }

/** The node's head as the index holds it, or undefined while the index is behind. */
async function indexedHead ({ rpc, db }: IndexedSource): Promise<{ number: number, hash: string } | undefined> {
  const head = await rpc.call<{ number: string, hash: string }>('eth_getBlockByNumber', ['latest', false])
  const stored = await db('blocks').orderBy('number', 'desc').first('number', 'hash')
  const same = stored !== undefined && Number(stored.number) === Number(head.number) && '0x' + (stored.hash as Buffer).toString('hex') === head.hash
  return same ? { number: Number(head.number), hash: head.hash } : undefined
}

/**
 * Waits until the indexer's highest block is the node's current head (same
 * height and hash) and the node has sealed nothing more for a moment: a
 * transaction still in the pool would otherwise be sealed after the wait and
 * put the node a block ahead of what a test compares.
 */
export async function waitForIndexed (app: FastifyInstance, timeoutMs = 60_000): Promise<number> {
  return await waitForIndexedOn({ rpc: app.geth.rpc, db: app.db.knex, describe: () => `status ${JSON.stringify(app.indexer.status())}` }, timeoutMs)
}

/** waitForIndexed on any index and its node. */
export async function waitForIndexedOn (source: IndexedSource, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const first = await indexedHead(source)
    if (first !== undefined) {
      await sleep(STABLE_MS)
      const second = await indexedHead(source)
      if (second?.hash === first.hash) return first.number
    }
    await sleep(50)
  }
  throw new Error(`the indexer did not reach the node's head within ${timeoutMs} ms${source.describe === undefined ? '' : ` (${source.describe()})`}`)
}

export const hex = (b: Buffer | null): string | null => b === null ? null : '0x' + b.toString('hex')

/** Every stored coin balance row that is not the node's eth_getBalance at its block, and how many rows were checked. */
export async function wrongStoredBalances (db: Knex, rpc: RpcClient): Promise<{ wrong: string[], rows: number }> {
  const stored = await db('coin_balances').orderBy(['block_number', 'address']).select('address', 'block_number', 'value')
  const answers = await rpc.batch<string>(stored.map((r) => ({ method: 'eth_getBalance', params: ['0x' + r.address.toString('hex'), '0x' + Number(r.block_number).toString(16)] })))
  const wrong = stored.filter((r, i) => r.value !== BigInt(answers[i]!).toString()).map((r) => `0x${r.address.toString('hex')} at ${r.block_number}`)
  return { wrong, rows: stored.length }
}
