// The parent's handle on the API load: one child process (api-load-worker.ts)
// sending a steady, modest request rate at the gateway until told to stop,
// so the latency seen is the gateway's, not a queue the load built itself.
import { fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'

export type ApiTarget = { name: string, url: string, method: 'GET' | 'POST', body?: string }

export type ApiLoadJob = {
  targets: ApiTarget[]
  /** Per target. */
  connections: number
  /** Requests per second per target, over all its connections. */
  ratePerS: number
}

export type ApiLatency = {
  name: string
  requests: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  /** Not a 200 (with a JSON-RPC result, for POST), or a connection error or timeout. */
  failures: number
  firstFailure: string | undefined
}

export type WorkerMessage = { type: 'start', job: ApiLoadJob } | { type: 'stop' }
export type WorkerReply = { type: 'started' } | { type: 'done', results: ApiLatency[] } | { type: 'failed', message: string }

export type ApiLoad = {
  /** Starts the load; resolves once requests are flowing. */
  start (job: ApiLoadJob): Promise<void>
  /** Stops it and gives the latency of every target since start. */
  stop (): Promise<ApiLatency[]>
  close (): Promise<void>
}

export function startApiLoad (): ApiLoad {
  const child = fork(new URL('./api-load-worker.ts', import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  let closing: Promise<void> | undefined
  return {
    async start (job) {
      const reply = await ask(child, { type: 'start', job })
      if (reply.type === 'failed') throw new Error(`API load failed to start: ${reply.message}`)
    },
    async stop () {
      const reply = await ask(child, { type: 'stop' })
      if (reply.type !== 'done') throw new Error(`API load failed: ${reply.type === 'failed' ? reply.message : 'no results'}`)
      return reply.results
    },
    close: async () => await (closing ??= stop(child))
  }
}

async function ask (child: ChildProcess, message: WorkerMessage): Promise<WorkerReply> {
  const reply = new Promise<WorkerReply>((resolve, reject) => {
    const onExit = (code: number | null): void => reject(new Error(`API load generator exited with code ${code}`))
    child.once('exit', onExit)
    child.once('message', (answer: WorkerReply) => {
      child.off('exit', onExit)
      resolve(answer)
    })
  })
  child.send(message)
  return await reply
}

async function stop (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  // The worker exits when its channel closes.
  if (child.connected) child.disconnect()
  await exited
}
