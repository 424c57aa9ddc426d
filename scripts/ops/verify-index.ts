// `ops verify-index [--from N] [--to M]`: every mismatch on its own line, then a summary.
import { fetchHeadNumber } from '../../core/indexer/fetch.ts'
import { readIndexedHead } from '../../core/indexer/store.ts'
import { formatMismatch, verifyIndex } from '../../core/indexer/check-index.ts'
import type { OpsCommandContext } from './command.ts'

const PROGRESS_EVERY_MS = 5000

export type VerifyIndexArgs = { from: number | undefined, to: number | undefined }

/** Exit code 0 when the index matches the node over the range, 1 otherwise. */
export async function runVerifyIndex ({ ops, log, out, signal }: OpsCommandContext, args: VerifyIndexArgs): Promise<number> {
  const [indexed, nodeHead] = await Promise.all([readIndexedHead(ops.db), fetchHeadNumber(ops.rpc, signal)])
  const indexHead = indexed?.number ?? -1
  const from = args.from ?? 0
  // Blocks above both heads exist nowhere: there is nothing to compare.
  const to = Math.min(args.to ?? indexHead, Math.max(indexHead, nodeHead))
  out(`verify-index: ${ops.source}`)
  const heads = `index head ${indexed === undefined ? 'none (empty index)' : indexHead}, node head ${nodeHead}`
  if (to < from) {
    out(`nothing to verify in blocks ${from}..${args.to ?? indexHead}; ${heads}`)
    return 0
  }
  let lastReport = Date.now()
  const report = await verifyIndex({
    db: ops.db,
    rpc: ops.rpc,
    from,
    to,
    signal,
    onMismatch: (mismatch) => out(formatMismatch(mismatch)),
    onProgress: (block) => {
      if (Date.now() - lastReport < PROGRESS_EVERY_MS) return
      lastReport = Date.now()
      log.info({ block, to }, 'verifying')
    }
  })
  const count = report.mismatches.length
  const blocks = new Set(report.mismatches.map((m) => m.block)).size
  const unchecked = nodeHead > to ? `; the node's blocks ${to + 1}..${nodeHead} not checked` : ''
  out(`verified blocks ${from}..${to} (${report.blocks} blocks): ${count === 0 ? 'no mismatches' : `${count} mismatches in ${blocks} blocks`}; ${heads}${unchecked}`)
  return count === 0 ? 0 : 1
}
