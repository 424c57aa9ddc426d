// CPU meters for one measured run: this process (the gateway), Geth and, when
// its postmaster is known, a PostgreSQL server (through /proc) and the whole machine. Reported as cores used, so on a small machine
// it shows who was short of CPU: the load generator, the gateway or Geth.
import { readFile, readdir } from 'node:fs/promises'
import { cpus } from 'node:os'
import { join } from 'node:path'

/** USER_HZ: the unit of /proc/<pid>/stat times, 100 on every Linux ABI Node runs on. */
const CLOCK_TICKS_PER_S = 100
const US_PER_S = 1e6
const MS_PER_S = 1e3

export type CpuUsage = {
  /** CPU seconds per wall second of this process (the gateway). */
  gatewayCores: number
  /** The same for Geth; null where /proc is not readable. */
  gethCores: number | null
  /** Busy share of all cores, 0..1. */
  machineBusy: number
  /** The same for a PostgreSQL server and its backends; absent when not measured. */
  postgresCores?: number | null
  /** Wall seconds the meter ran: cores times this is CPU seconds. */
  wallS: number
}

type Snapshot = { at: number, self: NodeJS.CpuUsage, gethS: number | null, postgresS: number | null, machine: { busyMs: number, totalMs: number } }

/** Starts measuring; the returned function stops and gives the usage since. */
export async function startCpuMeter (gethPid: number | undefined, postmasterPid?: number): Promise<() => Promise<CpuUsage>> {
  const before = await snapshot(gethPid, postmasterPid)
  return async () => {
    const after = await snapshot(gethPid, postmasterPid)
    const wallS = (after.at - before.at) / MS_PER_S
    const selfS = (after.self.user + after.self.system - before.self.user - before.self.system) / US_PER_S
    const totalMs = after.machine.totalMs - before.machine.totalMs
    return {
      gatewayCores: selfS / wallS,
      gethCores: after.gethS === null || before.gethS === null ? null : (after.gethS - before.gethS) / wallS,
      machineBusy: totalMs > 0 ? (after.machine.busyMs - before.machine.busyMs) / totalMs : 0,
      ...(postmasterPid === undefined ? {} : { postgresCores: after.postgresS === null || before.postgresS === null ? null : (after.postgresS - before.postgresS) / wallS }),
      wallS
    }
  }
}

/** The postmaster of the PostgreSQL server in `databaseDir`: its lock file starts with the pid. Undefined when there is none. */
export async function readPostmasterPid (databaseDir: string): Promise<number | undefined> {
  const pid = Number((await readFile(join(databaseDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0])
  return Number.isInteger(pid) && pid > 0 ? pid : undefined
}

async function snapshot (gethPid: number | undefined, postmasterPid: number | undefined): Promise<Snapshot> {
  return {
    at: performance.now(),
    self: process.cpuUsage(),
    gethS: await processCpuSeconds(gethPid),
    postgresS: await processTreeCpuSeconds(postmasterPid),
    machine: machineTimes()
  }
}

export async function processCpuSeconds (pid: number | undefined, withExitedChildren = false): Promise<number | null> {
  if (pid === undefined) return null
  try {
    const fields = statFields(await readFile(`/proc/${pid}/stat`, 'utf8'))
    const own = Number(fields[11]) + Number(fields[12])
    const children = withExitedChildren ? Number(fields[13]) + Number(fields[14]) : 0
    return (own + children) / CLOCK_TICKS_PER_S
  } catch {
    return null
  }
}

/** A process's CPU time in user space and in the kernel (its system calls: a busy machine inflates these most). */
export async function processCpuSplit (pid: number): Promise<{ userS: number, systemS: number } | null> {
  try {
    const fields = statFields(await readFile(`/proc/${pid}/stat`, 'utf8'))
    return { userS: Number(fields[11]) / CLOCK_TICKS_PER_S, systemS: Number(fields[12]) / CLOCK_TICKS_PER_S }
  } catch {
    return null
  }
}

/**
 * A server that forks a process per connection (PostgreSQL): the parent with
 * its exited children (counted once they are reaped) plus the live ones.
 */
async function processTreeCpuSeconds (pid: number | undefined): Promise<number | null> {
  const parent = await processCpuSeconds(pid, true)
  if (parent === null) return null
  let total = parent
  for (const entry of await readdir('/proc').catch(() => [])) {
    if (!/^[0-9]+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => undefined)
    if (stat === undefined) continue
    const fields = statFields(stat)
    if (Number(fields[1]) === pid) total += (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S
  }
  return total
}

/** The command name may hold spaces: fields are counted after its closing parenthesis (fields[0] is the state). */
const statFields = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ')

function machineTimes (): { busyMs: number, totalMs: number } {
  let busyMs = 0
  let totalMs = 0
  for (const { times } of cpus()) {
    const total = times.user + times.nice + times.sys + times.idle + times.irq
    totalMs += total
    busyMs += total - times.idle
  }
  return { busyMs, totalMs }
}
