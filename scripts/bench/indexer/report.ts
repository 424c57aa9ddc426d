// What `npm run bench:indexer` prints: tables for people, then one JSON line
// with every figure for machines (`npm run bench:indexer | tail -n 1`).
import type { CpuUsage } from '../../lib/cpu.ts'
import type { ApiRunResult } from './api.ts'
import type { BackfillResult } from './backfill.ts'
import type { FloorResult } from './floor.ts'
import type { HeadLagResult } from './head-lag.ts'
import type { ProfileSummary } from './profile.ts'
import type { SqlStat } from './instrument.ts'
import type { DecodeStage, StoreStage } from './stages.ts'

export const TARGET_MAX_RATIO = 1.3
export const TARGET_MIN_BACKFILL_TX_PER_S = 2000
export const TARGET_MAX_LAG_P99_MS = 500
const PROFILE_ROWS = 12
const SQL_ROWS = 20

export type ChainSummary = { dataDir: string, head: number, transactions: number, generated: boolean, generationS: number, copyS: number }

export type IndexerBenchSettings = {
  batchBlocks: number
  batchesInFlight: number
  batchSource: string
  database: 'external' | 'embedded'
  cpus: number
  apiConnections: number
  apiRatePerS: number
}

export type FloorRun = FloorResult & { cpu: CpuUsage }

export type IndexerBenchFigures = {
  chain: ChainSummary
  settings: IndexerBenchSettings
  /** The first pass over the chain, with Geth's caches cold. */
  floorCold: FloorRun
  /** The floor the targets use: a second pass, as warm as the backfill after it. */
  floor: FloorRun
  /** Every RPC batch the backfill sent, sent again without the indexer. */
  replay: { ms: number, batches: number, lanes: number, cpu: CpuUsage }
  stages: { decode: DecodeStage, store: StoreStage } | undefined
  backfill: BackfillResult
  /**
   * Each round is a warm floor and, right after it, a backfill into an empty
   * database; the first round is `floor` and `backfill`. The ratio target is
   * their median: runs minutes apart on a shared machine differ by a tenth.
   */
  rounds: Round[]
  api: ApiRunResult | undefined
  lag: HeadLagResult | undefined
}

export type Round = { floorMs: number, backfillMs: number }

const ratioOf = (r: Round): number => r.backfillMs / r.floorMs

type Target = { name: string, value: string, pass: boolean }

/** The middle ratio of the rounds (the mean of the middle two for an even count). */
export function medianRatio (rounds: Round[]): number {
  const sorted = rounds.map(ratioOf).sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

export function targets (f: IndexerBenchFigures): Target[] {
  const ratio = medianRatio(f.rounds)
  const txPerS = perS(f.backfill.transactions, f.backfill.ms)
  const list: Target[] = [
    { name: `backfill/floor time ratio <= ${TARGET_MAX_RATIO} (median of ${f.rounds.length} rounds)`, value: ratio.toFixed(2), pass: ratio <= TARGET_MAX_RATIO },
    { name: `backfill >= ${TARGET_MIN_BACKFILL_TX_PER_S} transactions/s`, value: txPerS.toFixed(0), pass: txPerS >= TARGET_MIN_BACKFILL_TX_PER_S }
  ]
  if (f.lag !== undefined) {
    const p99 = f.lag.queryable.p99Ms
    list.push({ name: `head lag p99 <= ${TARGET_MAX_LAG_P99_MS} ms`, value: ms(p99), pass: p99 <= TARGET_MAX_LAG_P99_MS && f.lag.missing === 0 })
  }
  return list
}

export function printReport (f: IndexerBenchFigures): void {
  const { chain, settings: s } = f
  const origin = chain.generated ? `generated in ${chain.generationS} s` : `cached, generated once in ${chain.generationS} s`
  console.log(`\nIndexer: chain of ${chain.head} blocks and ${chain.transactions} transactions (${origin}; copied in ${chain.copyS.toFixed(1)} s),`)
  console.log(`batches of ${s.batchBlocks} blocks, ${s.batchesInFlight} in flight (from ${s.batchSource}), ${s.database} PostgreSQL, ${s.cpus} CPUs\n`)
  const runs: Array<[string, { ms: number, blocks: number, transactions: number, cpu: CpuUsage }, number | undefined]> = [
    ['floor, cold: fetchBlockBundles only', f.floorCold, undefined],
    ['floor: fetchBlockBundles only', f.floor, undefined],
    [`replay of all the backfill's RPC (${f.replay.lanes} at a time)`, { ...f.replay, blocks: f.backfill.blocks, transactions: f.backfill.transactions }, undefined],
    ['backfill: createIndexer', f.backfill, f.backfill.eventLoopUtilization]
  ]
  if (f.api !== undefined) {
    runs.push(['backfill: buildApp under API load', { ms: f.api.backfillMs, blocks: f.backfill.blocks, transactions: f.backfill.transactions, cpu: f.api.backfill.cpu }, f.api.backfill.eventLoop.utilization])
  }
  printTable(['run', 'time', 'blocks/s', 'transactions/s', 'vs floor', 'node cores', 'geth cores', 'postgres cores', 'other cores', 'node event loop busy'],
    runs.map(([name, r, elu]) => [name, seconds(r.ms), perS(r.blocks, r.ms).toFixed(0), perS(r.transactions, r.ms).toFixed(0),
      (r.ms / f.floor.ms).toFixed(2), cores(r.cpu.gatewayCores), r.cpu.gethCores === null ? 'n/a' : cores(r.cpu.gethCores),
      r.cpu.postgresCores == null ? 'n/a' : cores(r.cpu.postgresCores), cores(otherCores(r.cpu, s.cpus)), elu === undefined ? '' : percent(elu)]))
  console.log('\n("node" is this process: the indexer or the app; "postgres" the embedded server; "other" the rest of the machine: the API load generator, anything else running.)')
  const floorCpu = cpuSeconds(f.floor)
  const backfillCpu = cpuSeconds(f.backfill)
  if (floorCpu !== undefined && backfillCpu !== undefined) {
    // On a shared machine others' load stretches wall times unevenly; the work each run did moves far less.
    console.log(`CPU time of node, Geth and PostgreSQL: floor ${floorCpu.toFixed(1)} s, backfill ${backfillCpu.toFixed(1)} s, ` +
      `ratio ${(backfillCpu / floorCpu).toFixed(2)} (with the cores to itself, the time ratio comes to this only if the stages keep them all busy)`)
  }
  if (f.rounds.length > 1) {
    console.log(`\nRounds (a warm floor, then a backfill into an empty database): median ratio ${medianRatio(f.rounds).toFixed(2)}\n`)
    printTable(['round', 'floor', 'backfill', 'ratio'], f.rounds.map((r, i) => [String(i + 1), seconds(r.floorMs), seconds(r.backfillMs), ratioOf(r).toFixed(2)]))
  }
  printBreakdown(f)
  const rows = f.backfill.rows
  const complete = rows.blocks === chain.head + 1 && rows.transactions === chain.transactions
  console.log(`\nStored by the backfill (${complete ? 'all of the chain' : 'NOT the whole chain'}): ` +
    Object.entries(rows).map(([table, n]) => `${n} ${table}`).join(', '))

  if (f.lag !== undefined) {
    const l = f.lag
    console.log(`\nHead lag: clique period 1 s, ${l.transactionsPerS} transactions/s for ${l.durationS} s, ${l.blocks} blocks ` +
      `(${l.transactions} transactions); from Geth's newHeads to ...\n`)
    printTable(['...', 'samples', 'p50', 'p99', 'max'], [
      [`found by a query (polled every ${l.pollMs} ms)`, String(l.queryable.samples), ms(l.queryable.p50Ms), ms(l.queryable.p99Ms), ms(l.queryable.maxMs)],
      ['the indexer\'s blocks event (after commit)', String(l.committed.samples), ms(l.committed.p50Ms), ms(l.committed.p99Ms), ms(l.committed.maxMs)]
    ])
    if (l.missing > 0) console.log(`WARNING ${l.missing} heads were never found in the database`)
  }

  if (f.api !== undefined) {
    const a = f.api
    console.log(`\nAPI latency in the gateway's process: ${s.apiConnections} connections and ${s.apiRatePerS} requests/s per endpoint, ` +
      `during the backfill and for ${a.idleS} s once idle\n`)
    const phases = [['backfill', a.backfill], ['idle', a.idle]] as const
    printTable(['endpoint', 'phase', 'requests', 'p50', 'p99', 'max', 'failures'],
      a.backfill.latency.flatMap((_, i) => phases.map(([phase, p]) => {
        const l = p.latency[i]!
        return [l.name, phase, String(l.requests), ms(l.p50Ms), ms(l.p99Ms), ms(l.maxMs), String(l.failures)]
      })), 2)
    console.log('')
    printTable(['event loop', 'busy', 'delay p50', 'delay p99', 'delay max'],
      phases.map(([phase, p]) => [phase, percent(p.eventLoop.utilization), ms(p.eventLoop.delayP50Ms), ms(p.eventLoop.delayP99Ms), ms(p.eventLoop.delayMaxMs)]))
    for (const [phase, p] of phases) {
      for (const l of p.latency) if (l.failures > 0) console.log(`WARNING ${l.name} (${phase}): ${l.failures} failed; first: ${l.firstFailure}`)
    }
  }

  if (f.backfill.profile !== undefined) printProfile(f.backfill.profile)
  if (f.backfill.sql !== undefined) printSql(f.backfill.sql, f.backfill.ms)

  console.log('\nTargets\n')
  printTable(['target', 'result'], targets(f).map((t) => [t.name, `${t.pass ? 'PASS' : 'FAIL'} ${t.value}`]))
  console.log('')
}

/** The backfill from outside: its store transactions run one after another; RPC overlaps them. */
function printBreakdown (f: IndexerBenchFigures): void {
  const { ms: wallMs, store, rpc } = f.backfill
  console.log(`\nWhere the backfill's ${seconds(wallMs)} went (measured around the indexer, not inside it)\n`)
  printTable(['stage', 'time', 'share of backfill', 'count', 'per item'], [
    ['store: database transactions (one at a time)', seconds(store.ms), percent(store.ms / wallMs), `${store.transactions} batches`, ms(store.ms / Math.max(1, store.transactions))],
    ['not storing: waiting for fetches, decoding, between batches', seconds(wallMs - store.ms), percent(1 - store.ms / wallMs), '', ''],
    ['RPC: at least one batch outstanding', seconds(rpc.busyMs), percent(rpc.busyMs / wallMs), `${rpc.batches} batches`, ms(rpc.sumMs / Math.max(1, rpc.batches))]
  ])
  if (f.stages !== undefined) {
    const { decode, store } = f.stages
    console.log('\nEach stage alone, nothing else in this process (BENCH_STAGES)\n')
    printTable(['stage', 'time', 'per block', 'for the whole chain (est.)', 'share of backfill (est.)'], [
      [`decode (${decode.blocks} blocks)`, seconds(decode.decodeMs), ms(decode.decodeMs / decode.blocks), seconds(decode.decodeMs / decode.blocks * f.backfill.blocks), percent(decode.decodeMs / decode.blocks * f.backfill.blocks / wallMs)],
      decode.signerFromNode
        ? ['clique signer in JS (skipped: from Geth)', seconds(decode.signerMs), ms(decode.signerMs / decode.blocks), '', '']
        : ['  of which clique signer in JS', seconds(decode.signerMs), ms(decode.signerMs / decode.blocks), seconds(decode.signerMs / decode.blocks * f.backfill.blocks), percent(decode.signerMs / decode.blocks * f.backfill.blocks / wallMs)],
      [`store (${store.batches} batches, serial)`, seconds(store.ms), ms(store.ms / store.blocks), seconds(store.ms), percent(store.ms / wallMs)],
      ['fetch: all the backfill\'s RPC, replayed', seconds(f.replay.ms), ms(f.replay.ms / f.backfill.blocks), seconds(f.replay.ms), percent(f.replay.ms / wallMs)]
    ])
  }
  console.log('\nRPC calls the backfill made, by method: ' + Object.entries(rpc.calls).sort((a, b) => b[1] - a[1]).map(([m, n]) => `${m} ${n}`).join(', '))
}

function printSql (statements: SqlStat[], wallMs: number): void {
  console.log('\nSQL statements of the backfill by total time (from send to answer; BENCH_TRACE_SQL)\n')
  printTable(['statement', 'count', 'total', 'share of backfill', 'per statement'],
    statements.slice(0, SQL_ROWS).map((q) => [q.statement, String(q.count), seconds(q.ms), percent(q.ms / wallMs), ms(q.ms / q.count)]))
}

function printProfile (p: ProfileSummary): void {
  console.log(`\nCPU profile of this process during the backfill (${seconds(p.totalMs)}), written to ${p.file}: self time by component\n`)
  printTable(['component', 'self time', 'share of run'], p.byComponent.slice(0, PROFILE_ROWS).map((c) => [c.name, seconds(c.ms), percent(c.share)]))
  console.log('\nTop functions by self time\n')
  printTable(['function', 'self time', 'share of run'], p.topFunctions.map((c) => [c.name, seconds(c.ms), percent(c.share)]))
}

export function printJson (f: IndexerBenchFigures): void {
  const ratio = medianRatio(f.rounds)
  console.log(JSON.stringify({
    ...f,
    backfill: { ...f.backfill, profile: f.backfill.profile === undefined ? undefined : { ...f.backfill.profile, topFunctions: undefined } },
    floorTransactionsPerS: perS(f.floor.transactions, f.floor.ms),
    node: process.version,
    ratio,
    cpuRatio: (cpuSeconds(f.backfill) ?? NaN) / (cpuSeconds(f.floor) ?? NaN),
    backfillTransactionsPerS: perS(f.backfill.transactions, f.backfill.ms),
    targets: Object.fromEntries(targets(f).map((t) => [t.name, { value: Number(t.value.replace(/ ms$/, '')), pass: t.pass }]))
  }))
}

/** The first `nameColumns` columns are names, aligned left; figures align right so their digits line up. */
function printTable (header: string[], rows: string[][], nameColumns = 1): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]): string => cells.map((c, i) => i < nameColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)).join('  ')
  console.log(line(header))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const row of rows) console.log(line(row))
}

function otherCores (cpu: CpuUsage, cpus: number): number {
  return Math.max(0, cpu.machineBusy * cpus - cpu.gatewayCores - (cpu.gethCores ?? 0) - (cpu.postgresCores ?? 0))
}

/** CPU seconds the three processes spent on a run; undefined when Geth or PostgreSQL could not be measured. */
function cpuSeconds (run: { ms: number, cpu: CpuUsage }): number | undefined {
  const { gatewayCores, gethCores, postgresCores } = run.cpu
  if (gethCores === null || postgresCores === undefined || postgresCores === null) return undefined
  return (gatewayCores + gethCores + postgresCores) * run.ms / 1000
}

const perS = (count: number, durationMs: number): number => count / (durationMs / 1000)
const seconds = (value: number): string => `${(value / 1000).toFixed(2)} s`
const ms = (value: number): string => `${value.toFixed(1)} ms`
const cores = (value: number): string => value.toFixed(2)
const percent = (share: number): string => `${(share * 100).toFixed(0)} %`
