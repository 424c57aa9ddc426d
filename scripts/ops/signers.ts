// `npm run ops -- signers`: the clique signers and votes, through the running
// gateway's own Geth (its private RPC on loopback, which serves the clique
// API; the public proxy never forwards clique_ methods). A vote lives in that
// Geth's memory until a block it seals carries it, so ops never starts a Geth
// of its own for this: a vote cast there would die with it.
import type { Config } from '../../core/config.ts'
import type { SignersCommand } from './args.ts'
import { readEndpoints } from '../../core/endpoints.ts'
import { OpsDataDirEmptyError, OpsNoRunningNodeError } from '../../core/errors.ts'
import { createRpcClient, type RpcClient } from '../../core/rpc/client.ts'
import { loadOrCreateNodeKeys, nodeKeyPaths } from '../../geth/keys.ts'
import { pathExists } from '../../core/fs/path-exists.ts'

const SIGNERS_RPC_TIMEOUT_MS = 10_000

export async function runSigners (config: Config, command: SignersCommand, out: (line: string) => void): Promise<number> {
  if (command.action === 'self') return await printSelf(config, out)
  const rpc = await openNodeRpc(config)
  try {
    if (command.action === 'list') {
      const [signers, proposals] = await Promise.all([
        rpc.call<string[]>('clique_getSigners', []),
        rpc.call<Record<string, boolean>>('clique_proposals', [])
      ])
      out(`signers (${signers.length}):`)
      for (const signer of signers) out(`  ${signer}`)
      const votes = Object.entries(proposals)
      out(`this node's votes (${votes.length}), kept until discarded:`)
      for (const [address, authorize] of votes) out(`  ${authorize ? 'add' : 'remove'} ${address}`)
      return 0
    }
    const { address } = command as Extract<SignersCommand, { address: string }>
    if (command.action === 'discard') {
      await rpc.call('clique_discard', [address])
      out(`discarded this node's vote on ${address}`)
      return 0
    }
    const authorize = command.action === 'propose'
    await rpc.call('clique_propose', [address, authorize])
    out(`voted to ${authorize ? 'add' : 'remove'} ${address}; it passes once more than half the signers have voted so`)
    return 0
  } finally {
    await rpc.close()
  }
}

async function openNodeRpc (config: Config): Promise<RpcClient> {
  const url = config.geth.rpcUrl ?? (await readEndpoints(config.dataDir))?.geth_rpc_url
  if (url === undefined) throw new OpsNoRunningNodeError(config.dataDir)
  return createRpcClient({ url, timeoutMs: SIGNERS_RPC_TIMEOUT_MS })
}

/** The keystore's signer, made by the first start; asked of the running node whether it signs, when one runs. */
async function printSelf (config: Config, out: (line: string) => void): Promise<number> {
  if (!await pathExists(nodeKeyPaths(config.dataDir).passwordFile)) throw new OpsDataDirEmptyError(config.dataDir, 'signer key (keystore/)')
  const { signer } = await loadOrCreateNodeKeys(config.dataDir)
  out(signer)
  const url = config.geth.rpcUrl ?? (await readEndpoints(config.dataDir))?.geth_rpc_url
  if (url === undefined) return 0
  const rpc = createRpcClient({ url, timeoutMs: SIGNERS_RPC_TIMEOUT_MS })
  try {
    const signers = await rpc.call<string[]>('clique_getSigners', [])
    const isSigner = signers.some((address) => address.toLowerCase() === signer.toLowerCase())
    out(isSigner ? 'a signer of the chain' : 'not a signer: the signers vote it in with npm run ops -- signers propose ' + signer)
  } finally {
    await rpc.close()
  }
  return 0
}
