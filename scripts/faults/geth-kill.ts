// (a) Geth killed with SIGKILL under a steady JSON-RPC load: the supervisor
// starts it again; meanwhile JSON-RPC answers -32603 at once (never after
// RPC_TIMEOUT_MS); then the indexer goes on and the index matches the node.
import { setTimeout as sleep } from 'node:timers/promises'
import { waitFor } from '../lib/gateway-process.ts'
import { createScenarioRecord, expectRecovered, type FaultContext, type ScenarioResult } from './context.ts'
import { callRpc, startReadLoad, startTransfers } from './traffic.ts'

const LOAD_CONCURRENCY = 4
const LOAD_BEFORE_KILL_MS = 2000
const LOAD_AFTER_RESTART_MS = 2000
/** A -32603 may take the time to refuse a connection on a loaded machine, never RPC_TIMEOUT_MS. */
const SLACK_MS = 2000

export async function gethKill (context: FaultContext): Promise<ScenarioResult> {
  const record = createScenarioRecord('geth-kill', 'Geth SIGKILL under JSON-RPC load')
  const gethPid = context.gethPid
  const load = startReadLoad(context.gateway.url, context.sender.address, LOAD_CONCURRENCY)
  const transfers = startTransfers(() => context.gateway.url, context.sender)
  let downMs = 0
  try {
    await sleep(LOAD_BEFORE_KILL_MS)
    const killed = await gethPid()
    process.kill(killed, 'SIGKILL')
    const killedAt = Date.now()
    await waitFor('Geth to be restarted and answer through the gateway', async () => {
      if (await gethPid() === killed) return undefined
      const answer = await callRpc(context.gateway.url, 'eth_blockNumber')
      return typeof answer.body?.result === 'string' ? true : undefined
    }, context.timeoutMs)
    downMs = Date.now() - killedAt
    await sleep(LOAD_AFTER_RESTART_MS)
  } finally {
    const f = await load.stop()
    const t = await transfers.stop()
    record.figure(`down ${(downMs / 1000).toFixed(1)} s; ${f.requests} reads: ${f.results} results, ${f.internalErrors} -32603 (slowest ${f.maxInternalErrorMs.toFixed(0)} ms), ${f.other} other; slowest answer ${f.maxMs.toFixed(0)} ms; ${t.sent} transfers sent`)
    record.expect(f.internalErrors > 0, 'no -32603 seen while Geth was down')
    record.expect(f.maxInternalErrorMs <= context.rpcTimeoutMs, `a -32603 took ${f.maxInternalErrorMs.toFixed(0)} ms (RPC_TIMEOUT_MS ${context.rpcTimeoutMs})`)
    record.expect(f.maxMs <= context.rpcTimeoutMs + SLACK_MS, `an answer took ${f.maxMs.toFixed(0)} ms (RPC_TIMEOUT_MS ${context.rpcTimeoutMs})`)
    record.expect(f.other === 0, `answers other than a result or -32603: ${f.other}, first ${f.firstOther}`)
  }
  record.expect(context.gateway.lines.some((l) => l.msg === 'geth exited unexpectedly; restarting'), 'the supervisor logged no restart')
  await expectRecovered(context, record)
  return record.result()
}
