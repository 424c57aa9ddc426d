// waitForReceipt() over a node that is still building its transaction index
// right after a start: that answer means "not known yet", not a failure.
import t from 'tap'
import { waitForReceipt } from '../../../core/faucet/receipt.ts'
import { RpcResponseError, type RpcClient } from '../../../core/rpc/client.ts'

/** A node whose eth_getTransactionReceipt answers from a script, one step per call. */
function scriptedNode (steps: Array<'indexing' | 'other error' | 'null' | 'receipt'>): RpcClient {
  let call = 0
  return {
    call: async () => {
      const step = steps[Math.min(call++, steps.length - 1)]
      if (step === 'indexing') throw new RpcResponseError(-32000, 'transaction indexing is in progress', 'transaction indexing is in progress')
      if (step === 'other error') throw new RpcResponseError(-32000, 'something else', undefined)
      return step === 'null' ? null : { status: '0x1', blockNumber: '0x5' }
    }
  } as unknown as RpcClient
}

t.test('waitForReceipt() polls on while the index is being built', async (t) => {
  t.same(await waitForReceipt(scriptedNode(['indexing', 'null', 'receipt']), '0xab', 5000), { status: '0x1', blockNumber: '0x5' })
})

t.test('waitForReceipt() passes any other node error on', async (t) => {
  await t.rejects(waitForReceipt(scriptedNode(['other error']), '0xab', 5000), { message: 'something else' })
})
