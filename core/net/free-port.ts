// Ports for the listeners we start as child processes (Geth's RPC, embedded
// PostgreSQL), which must be named on their command line before they bind.
//
// The port comes from below the kernel's ephemeral range. A port the kernel
// handed us from that range (listen on 0) and we then released can be handed
// out again before the child binds it: to a listener started with port 0 (Geth's
// own P2P listener is) or a connection's local end. That happened: Geth failed
// with "bind: address already in use" on a port probed free a moment before.
// Below the range only another caller choosing the same random port can collide.
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:net'

const LOWEST_PORT = 10_000
const DEFAULT_EPHEMERAL_LOW = 32_768
const ATTEMPTS = 50

export type FindFreePortOptions = {
  host?: string
  /** Returns [0, 1); tests pass a fixed sequence. */
  random?: () => number
}

/** A loopback port that is free now and outside the range the kernel assigns on its own. */
export async function findFreePort ({ host = '127.0.0.1', random = Math.random }: FindFreePortOptions = {}): Promise<number> {
  const ephemeralLow = await readEphemeralLow()
  const span = ephemeralLow - LOWEST_PORT
  if (span > 0) {
    for (let i = 0; i < ATTEMPTS; i++) {
      const port = LOWEST_PORT + Math.floor(random() * span)
      if (await isFree(port, host)) return port
    }
  }
  // A kernel whose ephemeral range starts low, or a crowded machine: let the kernel choose.
  return await listenAndRelease(0, host)
}

/** First port of the kernel's ephemeral range (Linux); the usual default elsewhere. */
export async function readEphemeralLow (): Promise<number> {
  const text = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(() => '')
  const low = Number(text.trim().split(/\s+/)[0])
  return Number.isInteger(low) && low > 0 ? low : DEFAULT_EPHEMERAL_LOW
}

async function isFree (port: number, host: string): Promise<boolean> {
  try {
    await listenAndRelease(port, host)
    return true
  } catch {
    return false
  }
}

async function listenAndRelease (port: number, host: string): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen({ port, host, exclusive: true }, () => {
      const bound = (server.address() as { port: number }).port
      server.close(() => resolve(bound))
    })
  })
}
