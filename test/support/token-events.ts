// A TestToken deployed through the gateway's HTTP endpoint, whose transfers
// make real Transfer events (topics: signature, from, to) for log
// subscriptions to hear. Sent with explicit nonces: several tests share one account.
import { ContractFactory, Interface, JsonRpcProvider, NonceManager, id, zeroPadValue, type TransactionReceipt, type Wallet } from 'ethers'
import { CHAIN_ID } from '../../core/config.ts'
import { TEST_TOKEN_SOURCE, compileContract } from './contracts.ts'
import { waitForReceipt } from './chain.ts'

export const TRANSFER_TOPIC = id('Transfer(address,address,uint256)')

export type TokenEvents = {
  address: string
  /** Sends `value` to `to`; resolves with the receipt once sealed. */
  transfer (to: string, value: bigint): Promise<TransactionReceipt>
  /** Sends a plain transfer of 1 wei; resolves with its hash at once. */
  sendValue (): Promise<string>
  /** The topic a log to `to` carries in position 2. */
  topicOf (to: string): string
  provider: JsonRpcProvider
}

export async function deployTokenEvents (httpUrl: string, account: Wallet): Promise<TokenEvents> {
  const provider = new JsonRpcProvider(httpUrl + '/rpc', CHAIN_ID, { staticNetwork: true })
  const signer = new NonceManager(account.connect(provider))
  const { abi, bytecode } = await compileContract(TEST_TOKEN_SOURCE, 'TestToken')
  const deployment = await new ContractFactory(abi as never, bytecode, signer).getDeployTransaction('Sub', 'SUB', 10n ** 24n)
  const deployed = await signer.sendTransaction({ ...deployment, gasLimit: 2_000_000n })
  const receipt = await waitForReceipt(provider, deployed.hash)
  const address = receipt.contractAddress!
  const token = new Interface(abi as never)
  return {
    address,
    provider,
    async transfer (to, value) {
      const sent = await signer.sendTransaction({ to: address, data: token.encodeFunctionData('transfer', [to, value]), gasLimit: 100_000n })
      return await waitForReceipt(provider, sent.hash)
    },
    async sendValue () {
      return (await signer.sendTransaction({ to: account.address, value: 1n, gasLimit: 21_000n })).hash
    },
    topicOf: (to) => zeroPadValue(to, 32).toLowerCase()
  }
}
