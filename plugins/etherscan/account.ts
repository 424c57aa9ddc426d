// The account module: coin and token balances, and an address's
// transactions, internal transactions and token transfers in Etherscan's
// shapes and paging (page, offset, sort; startblock and endblock).
import { ACCOUNT_FIELD_NAMES, type AccountTransaction, type AccountTransactionRow } from '../../core/queries/etherscan/account.ts'
import type { Decoder } from '../../core/decode/index.ts'
import { TRANSFER_FIELD_NAMES, type TransferStandard } from '../../core/queries/etherscan/token-transfers.ts'
import type { PageWindow } from '../../core/queries/etherscan/page.ts'
import { listOf, strictObject, type EtherscanAction } from './action.ts'
import { ok, okList } from './envelope.ts'
import { MAX_BLOCK, NotOkError, PAGING_PARAMS, readAddress, readBlockNumber, readHash, readPaging, readSort, type Params } from './params.ts'

/** Etherscan's cap on balancemulti. */
export const MAX_BALANCE_ADDRESSES = 20
const NO_TRANSACTIONS = 'No transactions found'

const ADDRESS_PARAM = { address: { type: 'string', description: 'A 0x-prefixed 20-byte address' } }
const TAG_PARAM = { tag: { type: 'string', description: 'latest (the only state kept: the index\'s current balance)' } }
const RANGE_PARAMS = {
  startblock: { type: 'string', description: 'The first block to read (default 0)' },
  endblock: { type: 'string', description: 'The last block to read (default the newest)' }
}

function readTag (tag: string | undefined): void {
  if (tag !== undefined && tag !== '' && tag !== 'latest') throw new NotOkError('Invalid tag, only latest is supported')
}

const readRange = (params: Params) => ({
  from: readBlockNumber(params.startblock, 'startblock', 0),
  to: readBlockNumber(params.endblock, 'endblock', MAX_BLOCK)
})

const readWindow = (params: Params): PageWindow => ({ sort: readSort(params.sort), ...readPaging(params) })

/**
 * functionName: the method a call's input names, decoded as the REST API
 * decodes it (the target's verified ABI, else the bundled selector table),
 * for the page at once. Only a call to a contract is named: a creation, a
 * coin transfer or a selector nothing knows is "".
 */
async function nameFunctions (decoder: Decoder, rows: readonly AccountTransactionRow[]): Promise<AccountTransaction[]> {
  const decoded = await decoder.decodeInputs(rows.map((row) => ({ to: row.toIsContract ? row.to : null, input: row.input })))
  return rows.map(({ toIsContract: _toIsContract, ...row }, i) => ({ ...row, functionName: decoded[i]?.method_call ?? '' }))
}

const balance: EtherscanAction = {
  summary: 'An address\'s coin balance in wei',
  params: { ...ADDRESS_PARAM, ...TAG_PARAM },
  required: ['address'],
  result: { type: 'string', description: 'Wei' },
  async run (params, { queries }) {
    const address = readAddress(params.address)
    readTag(params.tag)
    return ok((await queries.etherscan.readCoinBalances([address])).get(address.toString('hex')) ?? '0')
  }
}

const balancemulti: EtherscanAction = {
  summary: `The coin balances of up to ${MAX_BALANCE_ADDRESSES} comma-separated addresses`,
  params: { address: { type: 'string', description: `Up to ${MAX_BALANCE_ADDRESSES} addresses, comma-separated` }, ...TAG_PARAM },
  required: ['address'],
  result: listOf(strictObject(['account', 'balance'])),
  async run (params, { queries }) {
    // Counted before anything else is read: a list of thousands costs one split.
    const accounts = params.address!.split(',', MAX_BALANCE_ADDRESSES + 1).map((a) => a.trim())
    if (accounts.length > MAX_BALANCE_ADDRESSES) throw new NotOkError(`Maximum of ${MAX_BALANCE_ADDRESSES} addresses per request`)
    const addresses = accounts.map((a) => readAddress(a))
    readTag(params.tag)
    const balances = await queries.etherscan.readCoinBalances(addresses)
    return ok(accounts.map((account, i) => ({ account, balance: balances.get(addresses[i]!.toString('hex')) ?? '0' })))
  }
}

const txlist: EtherscanAction = {
  summary: 'The transactions an address sent, received or created a contract with',
  params: { ...ADDRESS_PARAM, ...RANGE_PARAMS, ...PAGING_PARAMS },
  required: ['address'],
  result: listOf(strictObject(ACCOUNT_FIELD_NAMES.transaction)),
  async run (params, { queries, decoder }) {
    const address = readAddress(params.address)
    const rows = await queries.etherscan.listAccountTransactions({ address, range: readRange(params), window: readWindow(params) })
    return okList(await nameFunctions(decoder, rows), NO_TRANSACTIONS)
  }
}

const txlistinternal: EtherscanAction = {
  summary: 'Internal transactions: of an address, of a transaction (txhash) or of a block range',
  params: {
    ...ADDRESS_PARAM,
    txhash: { type: 'string', description: 'A transaction hash: its internal transactions (instead of an address)' },
    ...RANGE_PARAMS,
    ...PAGING_PARAMS
  },
  required: [],
  result: {
    anyOf: [
      listOf(strictObject(ACCOUNT_FIELD_NAMES.internal)),
      listOf(strictObject(ACCOUNT_FIELD_NAMES.internalOfTransaction))
    ]
  },
  async run (params, { queries }) {
    const window = readWindow(params)
    const selection = params.txhash !== undefined
      ? { transaction: readHash(params.txhash) }
      : params.address !== undefined
        ? { address: readAddress(params.address), range: readRange(params) }
        : { range: readRange(params) }
    return okList(await queries.etherscan.listAccountInternalTransactions({ selection, window }), NO_TRANSACTIONS)
  }
}

const TOKEN_PARAMS = {
  ...ADDRESS_PARAM,
  contractaddress: { type: 'string', description: 'The token contract (with or instead of address)' },
  ...RANGE_PARAMS,
  ...PAGING_PARAMS
}
function transferList (standard: TransferStandard, summary: string): EtherscanAction {
  return {
    summary,
    params: TOKEN_PARAMS,
    required: [],
    result: listOf(strictObject(TRANSFER_FIELD_NAMES[standard])),
    async run (params, { queries }) {
      if (params.address === undefined && params.contractaddress === undefined) throw new NotOkError('Query parameter \'address\' or \'contractaddress\' is required')
      const selection = {
        address: params.address === undefined ? undefined : readAddress(params.address),
        token: params.contractaddress === undefined ? undefined : readAddress(params.contractaddress, 'Invalid contractaddress format'),
        range: readRange(params)
      }
      return okList(await queries.etherscan.listAccountTokenTransfers({ standard, selection, window: readWindow(params) }), NO_TRANSACTIONS)
    }
  }
}

const tokentx = transferList('ERC-20', 'ERC-20 transfers of an address and/or a token contract')
const tokennfttx = transferList('ERC-721', 'ERC-721 transfers of an address and/or a token contract')
const token1155tx = transferList('ERC-1155', 'ERC-1155 transfers (a row per id of a batch) of an address and/or a token contract')

const tokenbalance: EtherscanAction = {
  summary: 'An address\'s balance of an ERC-20 token, in the token\'s smallest unit',
  params: { contractaddress: TOKEN_PARAMS.contractaddress, ...ADDRESS_PARAM, ...TAG_PARAM },
  required: ['contractaddress', 'address'],
  result: { type: 'string', description: 'The token\'s smallest unit' },
  async run (params, { queries }) {
    const token = readAddress(params.contractaddress, 'Invalid contractaddress format')
    const address = readAddress(params.address)
    readTag(params.tag)
    return ok(await queries.etherscan.readTokenBalance({ tokenAddress: token, holder: address }))
  }
}

const balancehistory: EtherscanAction = {
  summary: 'An address\'s coin balance in wei as of a block',
  params: { ...ADDRESS_PARAM, blockno: { type: 'string', description: 'The block number' } },
  required: ['address', 'blockno'],
  result: { type: 'string', description: 'Wei' },
  async run (params, { queries }) {
    const address = readAddress(params.address)
    const block = readBlockNumber(params.blockno, 'blockno', -1)
    if (block < 0) throw new NotOkError('Invalid blockno')
    return ok(await queries.etherscan.readCoinBalanceAt({ address, block }))
  }
}

export const ACCOUNT_ACTIONS: Record<string, EtherscanAction> = {
  balance, balancemulti, balancehistory, txlist, txlistinternal, tokentx, tokennfttx, token1155tx, tokenbalance
}
