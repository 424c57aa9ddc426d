// The chain half of a backup, read from the running node over its RPC: each
// block's RLP (debug_getRawBlock) from 0 to the head, one after another, which
// is the file format `geth export` writes and `geth import` reads. Consistent
// while Geth runs and seals (copying its database files would not be), and
// `geth import` re-executes every block, so the state is rebuilt and checked.
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import type { RpcClient } from '../rpc/client.ts'

const BLOCKS_PER_BATCH = 100

export type ChainBackup = { head: number, hash: string }

export async function exportChain (rpc: RpcClient, file: string, signal?: AbortSignal, fileMode = 0o600): Promise<ChainBackup> {
  const block = await rpc.call<{ number: string, hash: string }>('eth_getBlockByNumber', ['latest', false], signal)
  const head = Number(block.number)
  const out = createWriteStream(file, { mode: fileMode })
  try {
    for (let from = 0; from <= head; from += BLOCKS_PER_BATCH) {
      signal?.throwIfAborted()
      const numbers = Array.from({ length: Math.min(BLOCKS_PER_BATCH, head - from + 1) }, (_, i) => from + i)
      const raw = await rpc.batch<string>(numbers.map((n) => ({ method: 'debug_getRawBlock', params: ['0x' + n.toString(16)] })), signal)
      for (const rlp of raw) {
        if (!out.write(Buffer.from(rlp.slice(2), 'hex'))) await once(out, 'drain')
      }
    }
  } finally {
    out.end()
    await once(out, 'close')
  }
  return { head, hash: block.hash }
}
