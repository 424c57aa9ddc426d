// Every code of docs/errors.md as a client gets it: one request per code
// through HTTP to a real gateway, its status and body checked against the
// table (the catalogue test in readme.test.ts checks the names only). Codes
// that need conditions of their own (the database or Geth down, the faucet
// empty, another app's settings) are listed with the test file that sends
// them; codes never answered over HTTP (start-up, operator commands) are
// listed apart. A documented code in none of the three fails.
import t from 'tap'
import { existsSync, readFileSync } from 'node:fs'
import { STATUS_CODES } from 'node:http'
import { Wallet, keccak256 } from 'ethers'
import { build } from '../helper.ts'
import { BUNDLED_VERSION } from '../support/verify.ts'
import { LOGGER_INIT_CODE, sendRound, sign } from '../support/blocks.ts'

const ROOT = new URL('../../', import.meta.url)
const ADMIN_TOKEN = 'send-error-admin-token-0123456789'
/** Low enough for the last probe to reach, above what the probes before it spend. */
const PUBLIC_PER_MIN = 40

/** docs/errors.md's table: code to HTTP status. */
const documented = new Map([...readFileSync(new URL('docs/errors.md', ROOT), 'utf8').matchAll(/^\| `(GW_ERR_[A-Z0-9_]+)` \| (\d{3}) \|/gm)]
  .map((m) => [m[1]!, Number(m[2])]))

/** Sent through HTTP by these test files, under conditions this file does not make. */
const EXERCISED_ELSEWHERE: Record<string, string> = {
  GW_ERR_GRAPHQL_DISABLED: 'test/plugins/graphql/disabled.test.ts',
  GW_ERR_VERIFY_BODY_TOO_LARGE: 'test/plugins/verify/upload-limits.test.ts',
  GW_ERR_VERIFY_SOURCES_TOO_LARGE: 'test/plugins/verify/upload-limits.test.ts',
  // Needs a download site that does not answer.
  GW_ERR_VERIFY_COMPILER_OFFLINE: 'test/plugins/verify/compilers.test.ts',
  GW_ERR_DATABASE_UNAVAILABLE: 'test/plugins/database-unavailable.test.ts',
  GW_ERR_NODE_UNAVAILABLE: 'test/plugins/rest/token-transfers.test.ts',
  GW_ERR_FAUCET_DISABLED: 'test/plugins/faucet/faucet.test.ts',
  GW_ERR_FAUCET_EMPTY: 'test/plugins/faucet/faucet.test.ts',
  // Raised by core/faucet there (a drip not mined in time); answered as FAUCET_EMPTY is.
  GW_ERR_FAUCET_NOT_MINED: 'test/plugins/faucet/faucet.test.ts',
  GW_ERR_VERIFY_COMPILER_UNAVAILABLE: 'test/plugins/rest/smart-contracts-verify.test.ts',
  GW_ERR_VERIFY_COMPILATION_FAILED: 'test/plugins/rest/smart-contracts-verify.test.ts',
  GW_ERR_VERIFY_BYTECODE_MISMATCH: 'test/plugins/rest/smart-contracts-verify.test.ts',
  GW_ERR_VERIFY_CONSTRUCTOR_ARGS_MISMATCH: 'test/plugins/rest/smart-contracts-verify.test.ts',
  GW_ERR_VERIFY_COMPILER_MISMATCH: 'test/plugins/verify/compilers.test.ts',
  // Raised by core/verify's compiler and download (no HTTP there).
  GW_ERR_VERIFY_COMPILER_DOWNLOAD_FAILED: 'test/core/verify/solc-download.test.ts',
  GW_ERR_VERIFY_COMPILER_CHECKSUM_MISMATCH: 'test/core/verify/solc-download.test.ts',
  GW_ERR_VERIFY_COMPILE_TIMEOUT: 'test/core/verify/compiler.test.ts',
  GW_ERR_VERIFY_COMPILER_FAILED: 'test/core/verify/compiler.test.ts',
  GW_ERR_VERIFY_BUSY: 'test/core/verify/compiler.test.ts'
}

/** Never answered over HTTP: start-up and operator commands stop with them. The test raising each, or null where none does. */
const NOT_OVER_HTTP: Record<string, string | null> = {
  GW_ERR_CONFIG_INVALID: 'test/core/config.test.ts',
  // A start or an operator command that fails: test/geth/network.test.ts raises all three.
  GW_ERR_JOIN_FAILED: 'test/geth/network.test.ts',
  GW_ERR_GENESIS_MISMATCH: 'test/geth/network.test.ts',
  GW_ERR_OPS_NO_RUNNING_NODE: 'test/geth/network.test.ts',
  GW_ERR_GETH_NOT_FOUND: null,
  GW_ERR_GETH_BUILD_FAILED: null,
  GW_ERR_GETH_START_FAILED: 'test/geth/start-failures.test.ts',
  GW_ERR_CHAIN_MISMATCH: 'test/geth/start-failures.test.ts',
  GW_ERR_GENESIS_ALLOC_INVALID: 'test/geth/genesis.test.ts',
  GW_ERR_DEV_ACCOUNTS_INVALID: null,
  GW_ERR_DATABASE_CHAIN_MISMATCH: 'test/core/db/embedded-postgres.test.ts',
  GW_ERR_EMBEDDED_POSTGRES_FAILED: null,
  GW_ERR_OPS_USAGE: 'test/scripts/ops/args.test.ts',
  GW_ERR_OPS_DATA_DIR_EMPTY: 'test/scripts/ops.test.ts',
  GW_ERR_GATEWAY_STARTING: 'test/scripts/ops.test.ts',
  GW_ERR_INDEXER_BUSY: 'test/scripts/ops.test.ts',
  GW_ERR_REINDEX_FAILED: null,
  GW_ERR_FAUCET_KEY_MISSING: null
}

/** How the route answers: the coded body, or Blockscout's {"message"} under /api/v2 (docs/errors.md says which). */
type Shape = 'coded' | 'blockscout'
type Probe = { code: string, shape: Shape, message: RegExp, send: () => Promise<Response> }

const { app, url, chain } = await build(t, {
  FAUCET_ENABLED: 'true',
  ADMIN_TOKEN,
  // The metrics probe comes from another address (X-Forwarded-For); the rate limit counts by it too.
  TRUST_PROXY: '127.0.0.1',
  RATE_LIMIT_ENABLED: 'true',
  RATE_LIMIT_PUBLIC_PER_MIN: String(PUBLIC_PER_MIN)
})

const get = async (path: string, headers: Record<string, string> = {}) => await fetch(url + path, { headers })
const post = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
  await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
const verifyVia = (address: string) => `/api/v2/smart-contracts/${address}/verification/via/standard-input`
const cooledDown = Wallet.createRandom().address

const PROBES: Probe[] = [
  { code: 'GW_ERR_ROUTE_NOT_FOUND', shape: 'coded', message: /^Route GET \/no-such-route not found$/, send: async () => await get('/no-such-route') },
  { code: 'GW_ERR_UNKNOWN_API_ACTION', shape: 'blockscout', message: /^Unknown API v2 action$/, send: async () => await get('/api/v2/no-such-action') },
  { code: 'GW_ERR_NOT_FOUND', shape: 'blockscout', message: /^Not found$/, send: async () => await get(`/api/v2/transactions/0x${'ab'.repeat(32)}`) },
  { code: 'GW_ERR_API_KEY_INVALID', shape: 'coded', message: /^Invalid API key$/, send: async () => await get('/api/v2/blocks', { 'x-api-key': 'not-a-key' }) },
  { code: 'GW_ERR_ADMIN_UNAUTHORIZED', shape: 'coded', message: /Authorization: Bearer/, send: async () => await get('/admin/api/keys') },
  { code: 'GW_ERR_API_KEY_NOT_FOUND', shape: 'coded', message: /No live API key/, send: async () => await post('/admin/api/keys/nobody/revoke', {}, admin) },
  {
    code: 'GW_ERR_API_KEY_AMBIGUOUS',
    shape: 'coded',
    message: /Several live API keys are labelled "twins"/,
    send: async () => {
      for (let i = 0; i < 2; i++) await post('/admin/api/keys', { label: 'twins' }, admin)
      return await post('/admin/api/keys/twins/rotate', {}, admin)
    }
  },
  { code: 'GW_ERR_METRICS_FORBIDDEN', shape: 'coded', message: /not to 203\.0\.113\.9/, send: async () => await get('/metrics', { 'x-forwarded-for': '203.0.113.9' }) },
  { code: 'GW_ERR_FAUCET_ADDRESS_INVALID', shape: 'coded', message: /Not an address/, send: async () => await post('/api/v2/faucet', { address: '0x1234' }) },
  {
    code: 'GW_ERR_FAUCET_CONTRACT_ADDRESS',
    shape: 'coded',
    message: /does not send to contracts/,
    send: async () => {
      const raw = await sign(chain.account.connect(null), { data: LOGGER_INIT_CODE, gasLimit: 100_000n, nonce: 0 })
      await sendRound(app.geth.rpc, [raw])
      const receipt = await app.geth.rpc.call<{ contractAddress: string }>('eth_getTransactionReceipt', [keccak256(raw)])
      return await post('/api/v2/faucet', { address: receipt.contractAddress })
    }
  },
  {
    code: 'GW_ERR_FAUCET_COOLDOWN',
    shape: 'coded',
    message: /less than the cooldown ago/,
    send: async () => {
      const first = await post('/api/v2/faucet', { address: cooledDown })
      if (first.status !== 200) throw new Error(`the first drip answered ${first.status}: ${await first.text()}`)
      return await post('/api/v2/faucet', { address: cooledDown })
    }
  },
  {
    code: 'GW_ERR_VERIFY_INPUT_INVALID',
    shape: 'blockscout',
    message: /^Invalid verification request/,
    send: async () => await post(verifyVia(Wallet.createRandom().address), { compiler_version: BUNDLED_VERSION, input: '{"language": "Solidity", "sources":' })
  },
  {
    code: 'GW_ERR_VERIFY_NOT_CONTRACT',
    shape: 'blockscout',
    message: /^Address is not a smart-contract/,
    send: async () => await post(verifyVia(Wallet.createRandom().address), { compiler_version: BUNDLED_VERSION, input: { language: 'Solidity', sources: { 'A.sol': { content: 'contract A {}' } } } })
  },
  // Last: it spends what is left of the public budget.
  {
    code: 'GW_ERR_RATE_LIMITED',
    shape: 'coded',
    message: /^Too many requests$/,
    send: async () => {
      for (let i = 0; i <= PUBLIC_PER_MIN; i++) {
        const response = await get('/api/v2/stats')
        if (response.status === 429) return response
        await response.arrayBuffer()
      }
      throw new Error(`no 429 within ${PUBLIC_PER_MIN + 1} requests`)
    }
  }
]

t.test('each code sent here answers the status docs/errors.md gives it, in its channel\'s body', async (t) => {
  for (const { code, shape, message, send } of PROBES) {
    const status = documented.get(code)!
    const response = await send()
    const body = await response.json() as Record<string, unknown>
    t.equal(response.status, status, `${code}: HTTP ${status}`)
    if (shape === 'coded') {
      t.same(Object.keys(body), ['statusCode', 'code', 'error', 'message'], `${code}: the coded body`)
      t.match(body, { statusCode: status, code, error: STATUS_CODES[status], message }, `${code}: its code and message`)
    } else {
      t.same(Object.keys(body), ['message'], `${code}: Blockscout's {"message"}`)
      t.match(body.message, message, `${code}: its message`)
    }
  }
})

t.test('every documented code is sent here, exercised in a named test file, or never answered over HTTP', async (t) => {
  t.ok(documented.size > 40, `${documented.size} codes documented`)
  for (const code of documented.keys()) {
    const places = [PROBES.some((p) => p.code === code), code in EXERCISED_ELSEWHERE, code in NOT_OVER_HTTP].filter(Boolean).length
    t.equal(places, 1, `${code}: in exactly one list`)
  }
  for (const code of [...PROBES.map((p) => p.code), ...Object.keys(EXERCISED_ELSEWHERE), ...Object.keys(NOT_OVER_HTTP)]) {
    t.ok(documented.has(code), `${code} is documented`)
  }
  for (const file of [...Object.values(EXERCISED_ELSEWHERE), ...Object.values(NOT_OVER_HTTP)]) {
    if (file !== null) t.ok(existsSync(new URL(file, ROOT)), `${file} exists`)
  }
})

t.test('JSON-RPC: a failure before its handler (a body shorter than its Content-Length) answers a JSON-RPC error, not the gateway\'s body', async (t) => {
  const response = await app.inject({ method: 'POST', url: '/rpc', headers: { 'content-type': 'application/json', 'content-length': '100' }, payload: '{"jsonrpc":"2.0","id":1}' })
  t.equal(response.statusCode, 400)
  t.same(response.json(), { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request', data: 'Request body size did not match Content-Length' } })
})
