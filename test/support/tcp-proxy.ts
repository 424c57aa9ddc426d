// A TCP proxy of the test's own in front of a server (PostgreSQL), that the
// test can stop and start again: stopped, it refuses new connections and cuts
// the open ones, as a database that went down does, without touching the
// machine's server that other test files share.
import { createServer, connect, type Socket } from 'node:net'
import { once } from 'node:events'

type Tap = { teardown (fn: () => unknown): void }

export type TcpProxy = { port: number, stop (): Promise<void>, start (): Promise<void> }

export async function startTcpProxy (t: Tap, target: { host: string, port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('error', () => {})
      socket.on('close', () => { sockets.delete(socket); client.destroy(); upstream.destroy() })
    }
    client.pipe(upstream).pipe(client)
  })
  let port = 0
  const start = async (): Promise<void> => {
    server.listen(port, '127.0.0.1')
    await once(server, 'listening')
    port = (server.address() as { port: number }).port
  }
  const stop = async (): Promise<void> => {
    if (!server.listening) return
    const closed = once(server, 'close')
    server.close()
    for (const socket of sockets) socket.destroy()
    await closed
  }
  await start()
  t.teardown(stop)
  return { get port () { return port }, stop, start }
}

/** `url` with its host and port replaced by the proxy's. */
export function throughProxy (url: string, proxy: TcpProxy): string {
  const proxied = new URL(url)
  proxied.hostname = '127.0.0.1'
  proxied.port = String(proxy.port)
  return proxied.toString()
}
