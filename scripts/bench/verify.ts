// `npm run bench:verify`: contract verification and what decoding by a
// verified ABI costs a read, on the real app (Geth, indexer, PostgreSQL;
// gateway.ts). An ERC-20 with constructor arguments and immutables
// (test/fixtures/contracts/VerifiedToken.sol) is deployed BENCH_ROUNDS + 1
// times; then
// - verification end to end: POST /api/v2/smart-contracts/{address}/
//   verification/via/standard-input (the standard JSON input as Hardhat and
//   Foundry write it) of a fresh copy each round, over HTTP, timed until the
//   answer (verification runs before it: compile, compare, store), checked
//   through /api/v2/smart-contracts/{address};
// - throughput at 32 connections (autocannon, in its own process) of
//   /api/v2/transactions/{hash} for a transfer() to the verified copy
//   (decoded_input by its ABI) and for one to an ERC-20 of other code never
//   verified (decoded by the selector table), in the same round, the order
//   alternating;
//   the figure is verified over unverified, median of the rounds.
// Knobs: BENCH_DURATION_S (10), BENCH_ROUNDS (3). Exit codes: 0 report
// printed (targets met or not), 1 setup failed, 2 some responses failed.
import { cpus, loadavg } from 'node:os'
import { randomBytes } from 'node:crypto'
import type { BenchGateway } from './gateway.ts'
import { originOf, runGatewayBenchmark, runMeasuringCpu, type GatewayLoadResult } from './gateway-run.ts'
import { createBenchSender, readTestContract, type TestContract } from './chain.ts'
import type { LoadGenerator } from './load-generator.ts'
import { printTable } from './report.ts'
import { median, readInt } from './figures.ts'

const CONNECTIONS = 32
const WARMUP_S = 2
const SAMPLE_EVERY = 50
const SUPPLY = 10n ** 24n
const CAP = 10n ** 25n
const TARGET_MIN_RATIO = 0.8
const SOURCE_PATH = 'VerifiedToken.sol'

type Side = 'unverified' | 'verified'
type Setup = { verifiable: string[], unverifiedCall: string, verifiedCall: string, token: TestContract }

/** The same settings the committed bytecode was compiled with (scripts/lib/compile-contract.ts): a full match. */
function standardInput (source: string): object {
  return {
    language: 'Solidity',
    sources: { [SOURCE_PATH]: { content: source } },
    settings: { evmVersion: 'paris', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } }
  }
}

/**
 * `copies` tokens to verify, an ERC-20 of other code never verified (a copy of
 * the same code would be shown and decoded as its verified twin), and a
 * transfer() to the first copy and to the unverified token.
 */
async function deploy (gateway: BenchGateway, copies: number): Promise<Setup> {
  const [token, other] = await Promise.all([readTestContract('VerifiedToken', 'VerifiedToken'), readTestContract('TestToken', 'TestToken')])
  const sender = createBenchSender(gateway.app.geth.rpc, gateway.app.db, gateway.senderKey)
  const deployed = await Promise.all([
    ...Array.from({ length: copies }, async (_, i) => await sender.deploy(token.bytecode + token.abi.encodeDeploy([`Bench Token ${i}`, `BT${i}`, SUPPLY, CAP]).slice(2))),
    sender.deploy(other.bytecode + other.abi.encodeDeploy(['Other Token', 'OT', SUPPLY]).slice(2))
  ])
  await sender.flush(deployed.map((d) => d.raw))
  const transfer = async (to: string): Promise<string> =>
    await sender.call(to, token.abi.encodeFunctionData('transfer', ['0x' + randomBytes(20).toString('hex'), 12_345n]))
  const unverified = deployed.at(-1)!.address
  const verifiable = deployed.slice(0, -1).map((d) => d.address)
  const [verifiedCall, unverifiedCall] = await sender.flush([await transfer(verifiable[0]!), await transfer(unverified)])
  return { verifiable, verifiedCall: verifiedCall!, unverifiedCall: unverifiedCall!, token }
}

async function timeVerification (origin: string, address: string, { source, compilerVersion }: TestContract): Promise<number> {
  const started = performance.now()
  const response = await fetch(`${origin}/api/v2/smart-contracts/${address}/verification/via/standard-input`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ compiler_version: compilerVersion, contract_name: 'VerifiedToken', autodetect_constructor_args: true, license_type: 'mit', input: standardInput(source) })
  })
  const body = await response.text()
  const ms = performance.now() - started
  if (response.status !== 200 || !body.includes('verification started')) throw new Error(`verification of ${address}: HTTP ${response.status} ${body.slice(0, 300)}`)
  const detail = await (await fetch(`${origin}/api/v2/smart-contracts/${address}`)).json() as { is_verified?: boolean, is_fully_verified?: boolean, name?: string }
  if (detail.is_verified !== true || detail.name !== 'VerifiedToken') throw new Error(`${address} is not shown verified after its verification: ${JSON.stringify(detail).slice(0, 300)}`)
  if (detail.is_fully_verified !== true) console.error(`${address}: a partial match only`)
  return ms
}

/**
 * Both transactions decoded, to a contract shown verified and to one shown not:
 * the first by its own verified ABI, the other by the selector table (whose
 * transfer() is now the verified one's, parameters to and value, as Blockscout
 * takes a selector from every verified ABI before its signature database).
 */
async function checkDecoded (origin: string, setup: Setup): Promise<void> {
  for (const [hash, verified] of [[setup.verifiedCall, true], [setup.unverifiedCall, false]] as const) {
    const tx = await (await fetch(`${origin}/api/v2/transactions/${hash}`)).json() as { to?: { is_verified?: boolean }, decoded_input?: { parameters: Array<{ name: string }> } | null }
    const got = tx.decoded_input?.parameters.map((p) => p.name).join(',')
    if (got !== 'to,value' || tx.to?.is_verified !== verified) throw new Error(`${hash}: to ${JSON.stringify(tx.to)}, decoded_input ${JSON.stringify(tx.decoded_input)}`)
  }
}

async function measureThroughput (load: LoadGenerator, origin: string, setup: Setup, rounds: number, durationS: number): Promise<Record<Side, GatewayLoadResult[]>> {
  const results: Record<Side, GatewayLoadResult[]> = { unverified: [], verified: [] }
  for (let round = 1; round <= rounds; round++) {
    const order: Side[] = round % 2 === 1 ? ['unverified', 'verified'] : ['verified', 'unverified']
    for (const side of order) {
      console.error(`round ${round} of ${rounds}: the ${side} contract's call (${WARMUP_S} + ${durationS} s)`)
      const job = { url: `${origin}/api/v2/transactions/${side === 'verified' ? setup.verifiedCall : setup.unverifiedCall}`, connections: CONNECTIONS, sampleEvery: SAMPLE_EVERY }
      await load.run({ ...job, durationS: WARMUP_S })
      results[side].push(await runMeasuringCpu(load, { ...job, durationS }))
    }
  }
  return results
}

type Settings = { durationS: number, rounds: number, loadBefore: number, loadAfter: number }

function report (verificationMs: number[], results: Record<Side, GatewayLoadResult[]>, settings: Settings): void {
  const ratios = results.verified.map((r, i) => r.reqPerS / results.unverified[i]!.reqPerS)
  const ratio = median(ratios)
  console.log(`\nVerification: ${settings.rounds} rounds; reads at ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${settings.durationS} s each; ${cpus().length} CPUs; ` +
    `load average ${settings.loadBefore.toFixed(1)} before, ${settings.loadAfter.toFixed(1)} after\n`)
  console.log(`standard-input verification of VerifiedToken, end to end: ${median(verificationMs).toFixed(0)} ms median (${verificationMs.map((ms) => ms.toFixed(0)).join(' / ')} ms)\n`)
  printTable(['/api/v2/transactions/{hash}, a transfer() to', 'req/s (median)', 'p99 (median)', 'gateway CPU / request (median)', 'per round'],
    (['unverified', 'verified'] as const).map((side) => [`the ${side} copy`, median(results[side].map((r) => r.reqPerS)).toFixed(0),
      `${median(results[side].map((r) => r.p99Ms)).toFixed(2)} ms`, `${median(results[side].map((r) => r.gatewayCpuMsPerRequest)).toFixed(2)} ms`,
      results[side].map((r) => r.reqPerS.toFixed(0)).join(' / ')]))
  console.log(`\nTarget: decoding by the verified ABI costs at most 20 %: verified >= ${TARGET_MIN_RATIO}x unverified`)
  console.log(`${ratio >= TARGET_MIN_RATIO ? 'PASS' : 'FAIL'} ${ratio.toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(' / ')})\n`)
  console.log(JSON.stringify({ ...settings, connections: CONNECTIONS, targets: { minRatio: TARGET_MIN_RATIO }, verificationMs, ratio, ratios, results }))
}

const durationS = readInt('BENCH_DURATION_S', 10)
const rounds = readInt('BENCH_ROUNDS', 3)

process.exit(await runGatewayBenchmark(async (gateway) => await deploy(gateway, rounds), async (gateway, setup, load) => {
  const origin = originOf(gateway)
  const loadBefore = loadavg()[0]!
  const verificationMs: number[] = []
  for (const [i, address] of setup.verifiable.entries()) {
    console.error(`round ${i + 1} of ${rounds}: verifying ${address} through standard-input`)
    verificationMs.push(await timeVerification(origin, address, setup.token))
  }
  await checkDecoded(origin, setup)
  const results = await measureThroughput(load, origin, setup, rounds, durationS)
  report(verificationMs, results, { durationS, rounds, loadBefore, loadAfter: loadavg()[0]! })
  return { bad: [...results.verified, ...results.unverified].some((r) => r.non200 + r.errors + r.sampleFailures > 0) }
}))
