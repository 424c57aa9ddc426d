// The read model: every reader of the index (REST, GraphQL, the Etherscan-style
// API, the Interpreter API, verification, the socket's broadcasts) asks it,
// through one object made once per database. The prepared-statement pool is
// passed here rather than found by the query modules through shared state,
// and a method with more than one argument takes them by name. The queries
// live in a folder per table they read (blocks/, transactions/, tokens/,
// addresses/, contracts/, search/); SQL shaped for one API in a folder named
// for it (graphql/, etherscan/; the Stats API's in core/stats) and is reached under
// that API's name; sql/ holds what they share (column encodings, keyset
// pages, the page size, prepared statements).
import type { Knex } from 'knex'
import type pg from 'pg'
import * as addressBalance from './addresses/address-balance.ts'
import * as addressNames from './addresses/address-names.ts'
import * as addressNfts from './addresses/address-nfts.ts'
import * as addressTabs from './addresses/address-tabs.ts'
import * as addressTokens from './addresses/address-tokens.ts'
import * as addresses from './addresses/addresses.ts'
import * as advancedFilters from './search/advanced-filters.ts'
import * as blockCountdown from './blocks/block-countdown.ts'
import * as blockPace from './blocks/block-pace.ts'
import * as blockTransactions from './blocks/block-transactions.ts'
import * as blocks from './blocks/blocks.ts'
import * as coinBalances from './addresses/coin-balances.ts'
import * as etherscanAccount from './etherscan/account.ts'
import * as etherscanBalanceHistory from './etherscan/balance-history.ts'
import * as etherscanBlock from './etherscan/block.ts'
import * as etherscanGas from './etherscan/gas.ts'
import * as etherscanLogs from './etherscan/logs.ts'
import * as etherscanTokenTransfers from './etherscan/token-transfers.ts'
import * as etherscanTransaction from './etherscan/transaction.ts'
import * as exists from './exists.ts'
import * as graphqlConnections from './graphql/connections.ts'
import * as graphqlRecords from './graphql/records.ts'
import * as indexingStatus from './blocks/indexing-status.ts'
import * as internalTransactions from './transactions/internal-transactions.ts'
import * as interpretation from './transactions/interpretation.ts'
import * as logs from './transactions/logs.ts'
import * as search from './search/search.ts'
import * as smartContracts from './contracts/smart-contracts.ts'
import * as stateChanges from './transactions/state-changes.ts'
import * as statsChain from '../stats/chain.ts'
import * as statsCounters from '../stats/counters.ts'
import * as statsDailyTransactions from '../stats/daily-transactions.ts'
import * as statsLineCharts from '../stats/line-charts.ts'
import * as statsPages from '../stats/pages.ts'
import * as statsTransactions from '../stats/transactions.ts'
import * as tokenInstances from './tokens/token-instances.ts'
import * as tokenTransfers from './tokens/token-transfers.ts'
import * as tokens from './tokens/tokens.ts'
import * as topAddresses from './addresses/top-addresses.ts'
import * as transactions from './transactions/transactions.ts'
import { createPreparedStatements } from './sql/prepared.ts'
import type { QueryDb } from './sql/query-db.ts'

export type QueriesOptions = {
  knex: Knex
  /** The generic-plan pool (core/db/index.ts); without it (a plain knex, a transaction), statements run on knex's connections. */
  prepared?: pg.Pool
}

const bind = <A extends unknown[], R>(db: QueryDb, query: (db: QueryDb, ...args: A) => R) => (...args: A): R => query(db, ...args)

export function createQueries ({ knex, prepared }: QueriesOptions) {
  const db: QueryDb = { knex, prepared: createPreparedStatements({ knex, pool: prepared }) }
  return {
    countAddresses: bind(db, addressBalance.countAddresses),
    findAddressBalance: bind(db, addressBalance.findAddressBalance),
    readAddressNames: bind(db, addressNames.readAddressNames),
    listAddressNftCollections: bind(db, addressNfts.listAddressNftCollections),
    listAddressNfts: bind(db, addressNfts.listAddressNfts),
    countAddressTabs: bind(db, addressTabs.countAddressTabs),
    isKnownAddress: bind(db, addressTabs.isKnownAddress),
    listHoldings: bind(db, addressTokens.listHoldings),
    listTokenBalances: bind(db, addressTokens.listTokenBalances),
    countValidatedBlocks: bind(db, addresses.countValidatedBlocks),
    findAddress: bind(db, addresses.findAddress),
    listAddressTransactions: bind(db, addresses.listAddressTransactions),
    findFilterTokens: bind(db, advancedFilters.findFilterTokens),
    listAdvancedFilterItems: bind(db, advancedFilters.listAdvancedFilterItems),
    resolveAge: bind(db, advancedFilters.resolveAge),
    readBlockCountdown: bind(db, blockCountdown.readBlockCountdown),
    readBlockPace: bind(db, blockPace.readBlockPace),
    findBlockNumber: bind(db, blockTransactions.findBlockNumber),
    listBlockTransactions: bind(db, blockTransactions.listBlockTransactions),
    findBlock: bind(db, blocks.findBlock),
    listBlocks: bind(db, blocks.listBlocks),
    listBlocksBySigner: bind(db, blocks.listBlocksBySigner),
    readLatestBlock: bind(db, blocks.readLatestBlock),
    listCoinBalanceHistory: bind(db, coinBalances.listCoinBalanceHistory),
    listDailyBalances: bind(db, coinBalances.listDailyBalances),
    tokenExists: bind(db, exists.tokenExists),
    transactionExists: bind(db, exists.transactionExists),
    readIndexingStatus: bind(db, indexingStatus.readIndexingStatus),
    listAddressInternalTransactions: bind(db, internalTransactions.listAddressInternalTransactions),
    listBlockInternalTransactions: bind(db, internalTransactions.listBlockInternalTransactions),
    listInternalTransactions: bind(db, internalTransactions.listInternalTransactions),
    listTraceFrames: bind(db, internalTransactions.listTraceFrames),
    listTransactionInternalTransactions: bind(db, internalTransactions.listTransactionInternalTransactions),
    findInterpretedTransaction: bind(db, interpretation.findInterpretedTransaction),
    listAddressTransactionHashes: bind(db, interpretation.listAddressTransactionHashes),
    readAddresses: bind(db, interpretation.readAddresses),
    readTransactionParts: bind(db, interpretation.readTransactionParts),
    listAddressLogs: bind(db, logs.listAddressLogs),
    listTransactionLogs: bind(db, logs.listTransactionLogs),
    findAddressHit: bind(db, search.findAddressHit),
    findBlockHit: bind(db, search.findBlockHit),
    findExactHits: bind(db, search.findExactHits),
    findTransactionHit: bind(db, search.findTransactionHit),
    searchTokens: bind(db, search.searchTokens),
    searchVerifiedContracts: bind(db, search.searchVerifiedContracts),
    countContracts: bind(db, smartContracts.countContracts),
    findContract: bind(db, smartContracts.findContract),
    findContractCreations: bind(db, smartContracts.findContractCreations),
    readStateChanges: bind(db, stateChanges.readStateChanges),
    countInstanceTransfers: bind(db, tokenInstances.countInstanceTransfers),
    findTokenInstance: bind(db, tokenInstances.findTokenInstance),
    findTokenInstances: bind(db, tokenInstances.findTokenInstances),
    listHolderInstances: bind(db, tokenInstances.listHolderInstances),
    listInstanceHolders: bind(db, tokenInstances.listInstanceHolders),
    listTokenInstances: bind(db, tokenInstances.listTokenInstances),
    listAddressTokenTransfers: bind(db, tokenTransfers.listAddressTokenTransfers),
    listInstanceTransfers: bind(db, tokenTransfers.listInstanceTransfers),
    listTokenContractTransfers: bind(db, tokenTransfers.listTokenContractTransfers),
    listTokenTransfers: bind(db, tokenTransfers.listTokenTransfers),
    listTransactionTokenTransfers: bind(db, tokenTransfers.listTransactionTokenTransfers),
    listTransactionTokenTransfersPage: bind(db, tokenTransfers.listTransactionTokenTransfersPage),
    readTransferCalls: bind(db, tokenTransfers.readTransferCalls),
    countTokenTransfers: bind(db, tokens.countTokenTransfers),
    findToken: bind(db, tokens.findToken),
    listTokenHolders: bind(db, tokens.listTokenHolders),
    listTokens: bind(db, tokens.listTokens),
    listTopAddresses: bind(db, topAddresses.listTopAddresses),
    findTransaction: bind(db, transactions.findTransaction),
    listTransactions: bind(db, transactions.listTransactions),
    /** GraphQL's selections and connections. */
    graphql: {
      findAddressWithTransactions: bind(db, graphqlConnections.findAddressWithTransactions),
      listAddressTokenTransfers: bind(db, graphqlConnections.listAddressTokenTransfers),
      listAddressTransactions: bind(db, graphqlConnections.listAddressTransactions),
      listInternalTransactions: bind(db, graphqlConnections.listInternalTransactions),
      listTokenTransfers: bind(db, graphqlConnections.listTokenTransfers),
      listTransactionLogs: bind(db, graphqlConnections.listTransactionLogs),
      findAddressesByHash: bind(db, graphqlRecords.findAddressesByHash),
      findBlocksByNumber: bind(db, graphqlRecords.findBlocksByNumber),
      findContractCodes: bind(db, graphqlRecords.findContractCodes),
      findInternalErrors: bind(db, graphqlRecords.findInternalErrors),
      findInternalTransaction: bind(db, graphqlRecords.findInternalTransaction),
      findTokenTransfer: bind(db, graphqlRecords.findTokenTransfer),
      findTokensByAddress: bind(db, graphqlRecords.findTokensByAddress),
      findTransactionsByHash: bind(db, graphqlRecords.findTransactionsByHash)
    },
    /** The Etherscan-style /api's shapes. */
    etherscan: {
      listAccountInternalTransactions: bind(db, etherscanAccount.listAccountInternalTransactions),
      listAccountTransactions: bind(db, etherscanAccount.listAccountTransactions),
      readCoinBalances: bind(db, etherscanAccount.readCoinBalances),
      readCoinBalanceAt: bind(db, etherscanBalanceHistory.readCoinBalanceAt),
      readGasUse: bind(db, etherscanGas.readGasUse),
      findBlockNumberByTime: bind(db, etherscanBlock.findBlockNumberByTime),
      readBlockReward: bind(db, etherscanBlock.readBlockReward),
      listEtherscanLogs: bind(db, etherscanLogs.listEtherscanLogs),
      listAccountTokenTransfers: bind(db, etherscanTokenTransfers.listAccountTokenTransfers),
      readTokenBalance: bind(db, etherscanTokenTransfers.readTokenBalance),
      findTransactionOutcome: bind(db, etherscanTransaction.findTransactionOutcome),
      readCoinSupply: bind(db, etherscanTransaction.readCoinSupply)
    },
    /** The Stats API's figures and /api/v2's stats, from the daily sums the store keeps. */
    stats: {
      readChainStats: bind(db, statsChain.readChainStats),
      readCounters: bind(db, statsCounters.readCounters),
      readDailyTransactions: bind(db, statsDailyTransactions.readDailyTransactions),
      readLinePoints: bind(db, statsLineCharts.readLinePoints),
      readContractsPage: bind(db, statsPages.readContractsPage),
      readMainPage: bind(db, statsPages.readMainPage),
      readTransactionsPage: bind(db, statsPages.readTransactionsPage),
      readTransactionStats: bind(db, statsTransactions.readTransactionStats)
    }
  }
}

export type Queries = ReturnType<typeof createQueries>
