import { createServer } from 'node:net'

/** Asks the kernel for a free loopback port. Another process could take it before we bind; callers bind soon after. */
export async function findFreePort (host = '127.0.0.1'): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
