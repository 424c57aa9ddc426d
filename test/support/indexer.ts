import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'

/** Waits until the indexer's highest block is the node's current head (same height and hash). */
export async function waitForIndexed (app: FastifyInstance, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const head = await app.geth.rpc.call<{ number: string, hash: string }>('eth_getBlockByNumber', ['latest', false])
    const stored = await app.db.knex('blocks').orderBy('number', 'desc').first('number', 'hash')
    if (stored !== undefined && Number(stored.number) === Number(head.number) && '0x' + (stored.hash as Buffer).toString('hex') === head.hash) {
      return Number(head.number)
    }
    await sleep(50)
  }
  throw new Error(`the indexer did not reach the node's head within ${timeoutMs} ms (status ${JSON.stringify(app.indexer.status())})`)
}

export const hex = (b: Buffer | null): string | null => b === null ? null : '0x' + b.toString('hex')
