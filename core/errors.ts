// The catalogue of coded errors. Each has a code, a message template and an
// HTTP status; docs/errors.md lists every code and a test keeps the
// two in step. JSON-RPC errors have their own channel: core/json-rpc/errors.ts.
import createError from '@fastify/error'

// Start-up and operator errors: the process cannot go on and says why.
export const ConfigInvalidError = createError<[string]>('GW_ERR_CONFIG_INVALID', 'Invalid configuration: %s', 500)
export const GethNotFoundError = createError<[string]>('GW_ERR_GETH_NOT_FOUND', 'No Geth 1.13 binary found and it cannot be built: %s', 500)
export const GethBuildFailedError = createError<[string]>('GW_ERR_GETH_BUILD_FAILED', 'Building Geth v1.13.15 failed: %s', 500)
export const GethStartFailedError = createError<[string]>('GW_ERR_GETH_START_FAILED', 'Geth did not start: %s', 500)
export const ChainMismatchError = createError<[string, string]>('GW_ERR_CHAIN_MISMATCH', 'The node at %s serves chain ID %s, not 793788', 500)
export const GenesisAllocInvalidError = createError<[string, string]>('GW_ERR_GENESIS_ALLOC_INVALID', 'GENESIS_ALLOC file %s is not a Geth alloc object: %s', 500)
export const DevAccountsInvalidError = createError<[string, string]>('GW_ERR_DEV_ACCOUNTS_INVALID', 'DEV_ACCOUNTS_FILE %s is not a JSON array of private keys: %s', 500)
export const DatabaseChainMismatchError = createError<[string, string]>('GW_ERR_DATABASE_CHAIN_MISMATCH', 'The database indexes the chain with genesis %s, but the node has genesis %s', 500)
export const JoinFailedError = createError<[string, string]>('GW_ERR_JOIN_FAILED', 'Could not join the network of JOIN_URL %s: %s', 500)
export const GenesisMismatchError = createError<[string, string, string]>('GW_ERR_GENESIS_MISMATCH', 'DATA_DIR holds the chain with genesis %s, but %s publishes genesis %s: use an empty DATA_DIR to join it', 500)
export const EmbeddedPostgresFailedError = createError<[string]>('GW_ERR_EMBEDDED_POSTGRES_FAILED', 'Embedded PostgreSQL did not start: %s', 500)

// Operator commands (`npm run ops`).
export const OpsUsageError = createError<[string]>('GW_ERR_OPS_USAGE', 'Invalid ops command line: %s', 500)
export const OpsDataDirEmptyError = createError<[string, string]>('GW_ERR_OPS_DATA_DIR_EMPTY', 'No gateway runs on DATA_DIR %s and it holds no %s: start the gateway there first, or set GETH_RPC_URL and DATABASE_URL', 500)
export const GatewayStartingError = createError<[string, string]>('GW_ERR_GATEWAY_STARTING', 'A gateway (pid %s) runs Geth or PostgreSQL on DATA_DIR %s but has not written endpoints.json: wait until it serves, or set GETH_RPC_URL and DATABASE_URL', 500)
export const OpsNoRunningNodeError = createError<[string]>('GW_ERR_OPS_NO_RUNNING_NODE', 'No gateway runs on DATA_DIR %s: votes go to a running node (clique keeps them in memory), so start the gateway first or set GETH_RPC_URL to its Geth', 500)
export const IndexerBusyError = createError<[string]>('GW_ERR_INDEXER_BUSY', 'Another process holds the indexer lock on this database (a running gateway indexes it): stop the gateway, then run %s again', 500)
export const ReindexFailedError = createError<[string, string]>('GW_ERR_REINDEX_FAILED', 'Reindexing stopped at block %s: %s', 500)

// HTTP errors outside the JSON-RPC channel.
export const RouteNotFoundError = createError<[string, string]>('GW_ERR_ROUTE_NOT_FOUND', 'Route %s %s not found', 404)
export const GraphqlDisabledError = createError('GW_ERR_GRAPHQL_DISABLED', 'GraphQL is disabled on this instance (GRAPHQL_ENABLED=false)', 404)
export const DatabaseUnavailableError = createError('GW_ERR_DATABASE_UNAVAILABLE', 'The database is unavailable', 503)
export const NodeUnavailableError = createError('GW_ERR_NODE_UNAVAILABLE', 'The node is unavailable', 503)
// REST's client errors, in Blockscout's words: its front end and clients read the message.
export const NotFoundError = createError('GW_ERR_NOT_FOUND', 'Not found', 404)
export const UnknownApiActionError = createError('GW_ERR_UNKNOWN_API_ACTION', 'Unknown API v2 action', 400)

// Access: API keys, rate limits and the admin API (plugins/auth, plugins/rate-limit).
// One message whatever the reason (unknown, malformed, revoked): a client probing keys learns nothing; the log keeps the reason.
export const ApiKeyInvalidError = createError('GW_ERR_API_KEY_INVALID', 'Invalid API key', 401)
export const RateLimitedError = createError('GW_ERR_RATE_LIMITED', 'Too many requests', 429)
export const AdminUnauthorizedError = createError('GW_ERR_ADMIN_UNAUTHORIZED', 'The admin API wants Authorization: Bearer <ADMIN_TOKEN>', 401)
export const ApiKeyNotFoundError = createError<[string]>('GW_ERR_API_KEY_NOT_FOUND', 'No live API key with id or label %s', 404)
export const ApiKeyAmbiguousError = createError<[string]>('GW_ERR_API_KEY_AMBIGUOUS', 'Several live API keys are labelled %s: name one by its id', 409)
export const FaucetDisabledError = createError<[string]>('GW_ERR_FAUCET_DISABLED', 'The faucet is off on this instance: %s', 404)
export const FaucetAddressInvalidError = createError<[string]>('GW_ERR_FAUCET_ADDRESS_INVALID', 'Not an address the faucet sends to: %s', 400)
export const FaucetContractAddressError = createError<[string]>('GW_ERR_FAUCET_CONTRACT_ADDRESS', 'The faucet does not send to contracts, and %s is one', 400)
export const FaucetCooldownError = createError<[string, string]>('GW_ERR_FAUCET_COOLDOWN', 'This %s had a drip less than the cooldown ago; the next is allowed at %s', 429)
export const FaucetEmptyError = createError<[string]>('GW_ERR_FAUCET_EMPTY', 'The faucet account %s has too little left for a drip; tell the operator', 503)
export const FaucetNotMinedError = createError<[string, string]>('GW_ERR_FAUCET_NOT_MINED', 'The drip %s was not mined (%s); it is not charged, ask again', 503)
export const FaucetKeyMissingError = createError<[string]>('GW_ERR_FAUCET_KEY_MISSING', 'No faucet key at %s: the faucet sends from the key the gateway made in DATA_DIR', 500)
export const MetricsForbiddenError = createError<[string]>('GW_ERR_METRICS_FORBIDDEN', 'Metrics are served to loopback, METRICS_ALLOW and ADMIN_TOKEN holders only, not to %s', 403)

// Contract verification (core/verify/): the request's fault (400), no compiler to spare (503), or none to download (502, 503).
export const VerifyInputInvalidError = createError<[string]>('GW_ERR_VERIFY_INPUT_INVALID', 'Invalid verification request: %s', 400)
// Over VERIFY_MAX_BODY_BYTES or VERIFY_MAX_SOURCES_BYTES: what one verification may make the gateway hold.
export const VerifyBodyTooLargeError = createError<[string]>('GW_ERR_VERIFY_BODY_TOO_LARGE', 'Request body is too large: over %s bytes (VERIFY_MAX_BODY_BYTES)', 413)
export const VerifySourcesTooLargeError = createError<[string, string]>('GW_ERR_VERIFY_SOURCES_TOO_LARGE', 'The sources are too large to verify: %s bytes, over %s (VERIFY_MAX_SOURCES_BYTES)', 413)
export const VerifyNotContractError = createError<[string]>('GW_ERR_VERIFY_NOT_CONTRACT', 'Address is not a smart-contract: %s has no code', 404)
export const VerifyCompilerUnavailableError = createError<[string, string, string]>('GW_ERR_VERIFY_COMPILER_UNAVAILABLE', 'Compiler version %s is not available here (available: %s); %s', 400)
// A compiler to download (SOLC_DOWNLOAD=true) that could not be had: the download site's fault, not the request's.
export const VerifyCompilerDownloadFailedError = createError<[string, string]>('GW_ERR_VERIFY_COMPILER_DOWNLOAD_FAILED', 'Compiler version %s could not be downloaded: %s; try again later', 503)
export const VerifyCompilerOfflineError = createError<[string, string, string, string, string]>('GW_ERR_VERIFY_COMPILER_OFFLINE', 'Compiler version %s is not on this gateway and could not be downloaded: %s cannot be reached (%s). Verify with a version available here (%s), or an operator can put %s into SOLC_CACHE_DIR, or point SOLC_DOWNLOAD_URL at a reachable mirror', 503)
export const VerifyCompilerChecksumError = createError<[string, string, string]>('GW_ERR_VERIFY_COMPILER_CHECKSUM_MISMATCH', 'The downloaded build of compiler version %s was refused: its keccak256 is %s, not the %s its list publishes', 502)
export const VerifyCompilerMismatchError = createError<[string, string]>('GW_ERR_VERIFY_COMPILER_MISMATCH', 'The contract was compiled with solc %s (its metadata says so), not %s', 400)
export const VerifyCompilationFailedError = createError<[string]>('GW_ERR_VERIFY_COMPILATION_FAILED', 'Compilation failed: %s', 400)
export const VerifyCompileTimeoutError = createError<[string]>('GW_ERR_VERIFY_COMPILE_TIMEOUT', 'Compilation took longer than %s ms and was stopped', 400)
export const VerifyCompilerFailedError = createError<[string]>('GW_ERR_VERIFY_COMPILER_FAILED', 'The compiler did not finish: %s', 400)
export const VerifyBusyError = createError<[string]>('GW_ERR_VERIFY_BUSY', 'Too many verifications waiting (%s): try again shortly', 503)
export const VerifyBytecodeMismatchError = createError<[string]>('GW_ERR_VERIFY_BYTECODE_MISMATCH', 'The compiled bytecode does not match the contract\'s code: %s', 400)
export const VerifyConstructorArgsMismatchError = createError<[string, string]>('GW_ERR_VERIFY_CONSTRUCTOR_ARGS_MISMATCH', 'The constructor arguments given (%s) are not those of the creation transaction (%s)', 400)

/** Background work retries these with capped backoff: the fault may pass. */
export class RetryableError extends Error {
  override readonly name: string = 'RetryableError'
}

/** Background work stops on these: retrying cannot help. */
export class FatalError extends Error {
  override readonly name: string = 'FatalError'
}

/** Every code above starts so, and no code made elsewhere does. */
const CODE_PREFIX = 'GW_ERR_'

/**
 * Whether `err` is one of this catalogue's: its message is written for
 * clients (docs/errors.md), so an HTTP answer keeps its status, code and
 * message, where any other failure is hidden behind a bare 500.
 */
export function isCodedError (err: unknown): err is Error & { code: string, statusCode: number } {
  const { code, statusCode } = (err ?? {}) as { code?: unknown, statusCode?: unknown }
  return err instanceof Error && typeof code === 'string' && code.startsWith(CODE_PREFIX) && typeof statusCode === 'number'
}
