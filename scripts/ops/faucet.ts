// `npm run ops -- faucet <address> [amount]`: an operator's send from the
// faucet account. The same core/faucet as the public route, so it queues
// behind the gateway's own drips (one advisory lock) and never takes their nonce.
import { readFile } from 'node:fs/promises'
import { Wallet, formatEther, parseUnits } from 'ethers'
import type { Config } from '../../core/config.ts'
import { FaucetKeyMissingError } from '../../core/errors.ts'
import { createFaucet } from '../../core/faucet/index.ts'
import { nodeKeyPaths } from '../../geth/keys.ts'
import type { OpsCommandContext } from './command.ts'

export type FaucetArgs = { address: string, amount: string | undefined }

export async function runFaucet ({ ops, log, out }: OpsCommandContext, config: Config, { address, amount }: FaucetArgs): Promise<number> {
  const { faucetKeyFile } = nodeKeyPaths(config.dataDir)
  const key = await readFile(faucetKeyFile, 'utf8').catch(() => { throw new FaucetKeyMissingError(faucetKeyFile) })
  const faucet = createFaucet({ db: ops.db, rpc: ops.rpc, wallet: new Wallet(key.trim()), chainId: config.chainId, amountWei: config.faucet.amountWei, cooldownS: 0, log: log.child({ name: 'faucet' }) })
  const amountWei = amount === undefined ? config.faucet.amountWei : parseUnits(amount, 18)
  const drip = await faucet.send({ address, amountWei })
  out(`sent ${formatEther(drip.amountWei)} coins from ${faucet.address} to ${drip.to}`)
  out(`transaction ${drip.transactionHash} mined in block ${drip.blockNumber}`)
  return 0
}
