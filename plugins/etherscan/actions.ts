// The dispatch table of the Etherscan-style API: module, then action. Each
// module's actions live in a file of their own (account.ts, block.ts...);
// this table only composes them. A new module is one more entry here.
import type { EtherscanAction } from './action.ts'
import { ACCOUNT_ACTIONS } from './account.ts'
import { BLOCK_ACTIONS } from './block.ts'
import { GASTRACKER_ACTIONS } from './gastracker.ts'
import { LOGS_ACTIONS } from './logs.ts'
import { PROXY_ACTIONS } from './proxy.ts'
import { STATS_ACTIONS } from './stats.ts'
import { TOKEN_ACTIONS } from './token.ts'
import { TRANSACTION_ACTIONS } from './transaction.ts'
import { contract } from './contract.ts'

export type { ActionContext, EtherscanAction } from './action.ts'

export const ETHERSCAN_MODULES: Record<string, Record<string, EtherscanAction>> = {
  account: ACCOUNT_ACTIONS,
  block: BLOCK_ACTIONS,
  logs: LOGS_ACTIONS,
  transaction: TRANSACTION_ACTIONS,
  stats: STATS_ACTIONS,
  token: TOKEN_ACTIONS,
  gastracker: GASTRACKER_ACTIONS,
  contract,
  proxy: PROXY_ACTIONS
}
