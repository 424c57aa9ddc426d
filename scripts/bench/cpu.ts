// CPU meters for one measured run: this process (the gateway), Geth (through
// /proc) and the whole machine. Reported as cores used, so on a small machine
// it shows who was short of CPU: the load generator, the gateway or Geth.
import { readFile } from 'node:fs/promises'
import { cpus } from 'node:os'

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
}

type Snapshot = { at: number, self: NodeJS.CpuUsage, gethS: number | null, machine: { busyMs: number, totalMs: number } }

/** Starts measuring; the returned function stops and gives the usage since. */
export async function startCpuMeter (gethPid: number | undefined): Promise<() => Promise<CpuUsage>> {
  const before = await snapshot(gethPid)
  return async () => {
    const after = await snapshot(gethPid)
    const wallS = (after.at - before.at) / MS_PER_S
    const selfS = (after.self.user + after.self.system - before.self.user - before.self.system) / US_PER_S
    const totalMs = after.machine.totalMs - before.machine.totalMs
    return {
      gatewayCores: selfS / wallS,
      gethCores: after.gethS === null || before.gethS === null ? null : (after.gethS - before.gethS) / wallS,
      machineBusy: totalMs > 0 ? (after.machine.busyMs - before.machine.busyMs) / totalMs : 0
    }
  }
}

async function snapshot (gethPid: number | undefined): Promise<Snapshot> {
  return { at: performance.now(), self: process.cpuUsage(), gethS: await processCpuSeconds(gethPid), machine: machineTimes() }
}

async function processCpuSeconds (pid: number | undefined): Promise<number | null> {
  if (pid === undefined) return null
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    // The command name may hold spaces: fields are counted after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const utime = Number(fields[11])
    const stime = Number(fields[12])
    return (utime + stime) / CLOCK_TICKS_PER_S
  } catch {
    return null
  }
}

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
