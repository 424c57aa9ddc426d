// (e) The database's disk full: the gateway is stopped, its embedded
// PostgreSQL data directory moved onto a tmpfs of its own (a few MiB over
// what it holds), and the gateway started again on it; then a ballast file
// takes every byte left, with transfers flowing. While the disk is full the
// indexer's writes fail (disk_full, or PostgreSQL stops on a WAL write it
// cannot make and its supervisor restarts it): REST and GraphQL answer their
// reads or 503 with a JSON body, never a 500; JSON-RPC keeps answering from
// Geth, whose disk is not full. Then the ballast goes, and the indexer
// catches up with nothing lost and nothing broken (verify-index).
// Mounting needs root; the tmpfs is unmounted with the suite's cleanups.
import { execa } from 'execa'
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { killLeftovers } from '../lib/gateway-process.ts'
import { createScenarioRecord, expectRecovered, type FaultContext, type ScenarioResult } from './context.ts'
import { callRpc, startTransfers } from './traffic.ts'

const MIB = 1024 * 1024
/** Room over the data for the restart and the catch-up before the ballast: WAL segments are 16 MiB. */
const HEADROOM_BYTES = 96 * MIB
const BALLAST_CHUNK_BYTES = MIB
const PAGE_BYTES = 4096
const PROBE_EVERY_MS = 250
/** How much of a logged disk-full line the report shows. */
const EXCERPT_CHARS = 160
const MS_PER_S = 1000
/** What the disk-full errors look like in the gateway's log (PostgreSQL's message and SQLSTATE). */
const DISK_FULL_LOGGED = /No space left on device|could not extend file|53100/

type Probe = { restOk: number, rest503: number, graphqlOk: number, graphql503: number, jsonRpc: number, problems: string[] }

export async function diskFull (context: FaultContext, fullS: number): Promise<ScenarioResult> {
  const record = createScenarioRecord('disk-full', `database disk full ${fullS} s`)
  if (context.env.DATABASE_URL !== '') return record.result('needs embedded PostgreSQL (the gateway runs on DATABASE_URL)')
  if (process.getuid?.() !== 0) return record.result('needs root to mount a tmpfs')
  await context.catchUp()
  const pgDir = join(context.dataDir, 'postgres')
  const ballast = join(pgDir, 'disk-full.ballast')
  await moveOntoTmpfs(context, pgDir)
  await context.startGateway()
  const indexedBefore = await context.catchUp()
  const transfers = startTransfers(() => context.gateway.url, context.sender)
  const probe: Probe = { restOk: 0, rest503: 0, graphqlOk: 0, graphql503: 0, jsonRpc: 0, problems: [] }
  let filledBytes = 0
  let indexedWhileFull = indexedBefore
  try {
    filledBytes = await fillDisk(ballast)
    const until = Date.now() + fullS * MS_PER_S
    while (Date.now() < until) {
      await probeWhileFull(context.gateway.url, probe)
      indexedWhileFull = Math.max(indexedWhileFull, Number((await context.gateway.health().catch(() => undefined))?.body.indexer?.head ?? 0))
      await sleep(PROBE_EVERY_MS)
    }
  } finally {
    await unlink(ballast).catch(() => {})
    const { sent } = await transfers.stop()
    record.figure(`tmpfs filled with a ${(filledBytes / MIB).toFixed(0)} MiB ballast; ${sent} transfers sent while full; index ${indexedBefore} -> ${indexedWhileFull} meanwhile`)
  }
  const freedAt = Date.now()
  record.figure(`while full: REST ${probe.restOk} answers 200, ${probe.rest503} 503 with JSON; GraphQL ${probe.graphqlOk} data, ${probe.graphql503} 503 DATABASE_UNAVAILABLE; ${probe.jsonRpc} JSON-RPC results`)
  for (const problem of probe.problems.slice(0, 3)) record.expect(false, problem)
  record.expect(probe.jsonRpc > 0 && probe.restOk + probe.rest503 > 0, 'nothing probed while the disk was full')
  const logged = context.gateway.lines.filter((l) => DISK_FULL_LOGGED.test(JSON.stringify(l)))
  record.expect(logged.length > 0, 'the gateway logged no disk-full error: the fault did not bite (more transfers, or a longer FAULTS_DISK_FULL_S)')
  record.figure(`${logged.length} disk-full lines logged; first: ${diskFullExcerpt(logged[0])}`)
  await expectRecovered(context, record)
  const { body } = await context.gateway.health()
  record.figure(`indexer ${String(body.indexer?.role)} ${((Date.now() - freedAt) / MS_PER_S).toFixed(1)} s after the space returned (verify-index included); PostgreSQL restarts: ${context.gateway.lines.filter((l) => l.msg === 'embedded PostgreSQL is back').length}`)
  record.expect(body.indexer?.role === 'writer', `the indexer is ${String(body.indexer?.role)} after the space returned, not writer`)
  return record.result()
}

/**
 * The part of a logged line that says what ran out: a failed statement's
 * message begins with the statement's text, which can run past any fixed cut.
 */
function diskFullExcerpt (line: unknown): string {
  const text = JSON.stringify(line ?? '')
  const at = Math.max(text.search(/No space left on device/), text.search(DISK_FULL_LOGGED))
  return at < 0 ? text.slice(0, EXCERPT_CHARS) : text.slice(Math.max(0, at - EXCERPT_CHARS / 2), at + EXCERPT_CHARS / 2)
}

/**
 * Stops the gateway (SIGTERM: PostgreSQL shuts down cleanly), mounts a tmpfs
 * the size of the data plus HEADROOM_BYTES, owned as the data directory is,
 * and copies the data onto it. The mount goes with the suite's cleanups,
 * after the gateway (cleanups run last in, first out).
 */
async function moveOntoTmpfs (context: FaultContext, pgDir: string): Promise<void> {
  context.gateway.kill('SIGTERM')
  await context.gateway.exited
  await killLeftovers(context.dataDir)
  const owner = await stat(pgDir)
  const onDisk = `${pgDir}.on-disk`
  await rename(pgDir, onDisk)
  await mkdir(pgDir)
  const size = Math.ceil((await sizeOf(onDisk) + HEADROOM_BYTES) / MIB) * MIB
  await execa('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700,uid=${owner.uid},gid=${owner.gid}`, 'tmpfs', pgDir])
  context.cleanups.teardown(async () => {
    await killLeftovers(context.dataDir)
    await execa('umount', ['-l', pgDir])
  })
  await execa('cp', ['-a', `${onDisk}/.`, pgDir])
  await rm(onDisk, { recursive: true, force: true })
}

async function sizeOf (dir: string): Promise<number> {
  let bytes = 0
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += (await stat(join(entry.parentPath, entry.name))).size
  }
  return bytes
}

/** Writes the ballast until the filesystem refuses a page more: ENOSPC. */
async function fillDisk (file: string): Promise<number> {
  const handle = await open(file, 'w')
  let written = 0
  try {
    for (const chunk of [Buffer.alloc(BALLAST_CHUNK_BYTES, 1), Buffer.alloc(PAGE_BYTES, 1)]) {
      for (;;) {
        try {
          written += (await handle.write(chunk)).bytesWritten
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break
          throw err
        }
      }
    }
  } finally {
    await handle.close().catch(() => {})
  }
  return written
}

/** REST and GraphQL: a read's answer or 503 with JSON, nothing else; JSON-RPC a result. */
async function probeWhileFull (url: string, probe: Probe): Promise<void> {
  const rest = await fetch(`${url}/api/v2/transactions`).catch(() => undefined)
  const restBody = await rest?.json().catch(() => undefined)
  if (rest?.status === 200 && Array.isArray(restBody?.items)) probe.restOk++
  else if (rest?.status === 503 && typeof restBody?.message === 'string') probe.rest503++
  else probe.problems.push(`REST while full: HTTP ${rest?.status ?? 'no answer'} ${JSON.stringify(restBody)?.slice(0, 200)}`)
  const graphql = await fetch(`${url}/api/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ block(number: 1) { hash } }' }) }).catch(() => undefined)
  const graphqlBody = await graphql?.json().catch(() => undefined)
  if (graphql?.status === 200 && typeof graphqlBody?.data?.block?.hash === 'string') probe.graphqlOk++
  else if (graphql?.status === 503 && graphqlBody?.errors?.[0]?.extensions?.code === 'DATABASE_UNAVAILABLE') probe.graphql503++
  else probe.problems.push(`GraphQL while full: HTTP ${graphql?.status ?? 'no answer'} ${JSON.stringify(graphqlBody)?.slice(0, 200)}`)
  const rpc = await callRpc(url, 'eth_getBlockByNumber', ['latest', false])
  if (typeof rpc.body?.result?.hash === 'string') probe.jsonRpc++
  else probe.problems.push(`JSON-RPC while full: HTTP ${rpc.status} ${JSON.stringify(rpc.body)}`)
}
