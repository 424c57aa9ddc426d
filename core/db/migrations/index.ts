// Append-only list of migrations, in order. Knex records applied names in
// knex_migrations; a name, once released, never changes.
import type { Knex } from 'knex'
import * as chainMeta from './2026_11_21_0_chain_meta.ts'
import * as chainData from './2026_11_21_1_chain_data.ts'
import * as tokensAddresses from './2026_11_21_2_tokens_addresses.ts'
import * as restListIndexes from './2026_11_21_3_rest_list_indexes.ts'
import * as tokenHoldings from './2026_11_21_4_token_holdings.ts'
import * as indexerBulkLoad from './2026_11_21_5_indexer_bulk_load.ts'
import * as transactionFlagIndexes from './2026_11_21_6_transaction_flag_indexes.ts'
import * as transactionTokenTransferFlag from './2026_11_21_7_transaction_token_transfer_flag.ts'
import * as addressNftIndex from './2026_11_21_8_address_nft_index.ts'
import * as instanceHoldersIndex from './2026_11_21_9_instance_holders_index.ts'
import * as nftMetadata from './2026_11_22_0_nft_metadata.ts'
import * as apiKeys from './2026_11_24_0_api_keys.ts'
import * as faucetDrips from './2026_11_24_0_faucet_drips.ts'
import * as statsDaily from './2026_11_24_0_stats_daily.ts'
import * as advancedFilterIndexes from './2026_11_26_0_advanced_filter_indexes.ts'
import * as verifiedContracts from './2026_11_26_0_verified_contracts.ts'
import * as transactionInterpretations from './2026_11_26_0_transaction_interpretations.ts'
import * as publicTags from './2026_11_26_1_public_tags.ts'
import * as statsNativeCoin from './2026_11_26_2_stats_native_coin.ts'
import * as logFilters from './2026_11_28_0_log_filters.ts'

type Migration = { up (knex: Knex): Promise<void>, down (knex: Knex): Promise<void> }

const MIGRATIONS: Array<[string, Migration]> = [
  ['2026_11_21_0_chain_meta', chainMeta],
  ['2026_11_21_1_chain_data', chainData],
  ['2026_11_21_2_tokens_addresses', tokensAddresses],
  ['2026_11_21_3_rest_list_indexes', restListIndexes],
  ['2026_11_21_4_token_holdings', tokenHoldings],
  ['2026_11_21_5_indexer_bulk_load', indexerBulkLoad],
  ['2026_11_21_6_transaction_flag_indexes', transactionFlagIndexes],
  ['2026_11_21_7_transaction_token_transfer_flag', transactionTokenTransferFlag],
  ['2026_11_21_8_address_nft_index', addressNftIndex],
  ['2026_11_21_9_instance_holders_index', instanceHoldersIndex],
  ['2026_11_22_0_nft_metadata', nftMetadata],
  ['2026_11_24_0_api_keys', apiKeys],
  ['2026_11_24_0_faucet_drips', faucetDrips],
  ['2026_11_24_0_stats_daily', statsDaily],
  ['2026_11_26_0_advanced_filter_indexes', advancedFilterIndexes],
  ['2026_11_26_0_verified_contracts', verifiedContracts],
  ['2026_11_26_0_transaction_interpretations', transactionInterpretations],
  ['2026_11_26_1_public_tags', publicTags],
  ['2026_11_26_2_stats_native_coin', statsNativeCoin],
  ['2026_11_28_0_log_filters', logFilters]
]

export const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => MIGRATIONS,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration
}
