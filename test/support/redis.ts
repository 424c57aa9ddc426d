// Redis for tests: the machine's at 127.0.0.1:6379, or one of the test's own
// (a redis-server on a free port, without persistence) that it can stop and start.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'

type Tap = { teardown (fn: () => unknown): void }

export const MACHINE_REDIS_URL = 'redis://127.0.0.1:6379'

/** True when a Redis answers PING at this URL within a second. */
export async function redisAnswers (url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null })
  client.on('error', () => {})
  try {
    await client.connect()
    return await client.ping() === 'PONG'
  } catch {
    return false
  } finally {
    client.disconnect()
  }
}

async function freePort (): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  await once(server, 'close')
  return port
}

export type TestRedis = { url: string, start (): Promise<void>, stop (): Promise<void> }

/** A redis-server of the test's own, started; stopped on teardown. */
export async function startTestRedis (t: Tap): Promise<TestRedis> {
  const port = await freePort()
  const url = `redis://127.0.0.1:${port}`
  let child: ChildProcess | undefined
  const stop = async (): Promise<void> => {
    if (child === undefined || child.exitCode !== null) return
    const exited = once(child, 'exit')
    child.kill('SIGTERM')
    await exited
    child = undefined
  }
  const start = async (): Promise<void> => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
    const deadline = Date.now() + 10_000
    while (!await redisAnswers(url)) {
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer`)
      await sleep(50)
    }
  }
  t.teardown(stop)
  await start()
  return { url, start, stop }
}
