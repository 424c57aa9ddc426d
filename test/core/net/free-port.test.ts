import t from 'tap'
import { createServer, type Server } from 'node:net'
import { findFreePort, readEphemeralLow } from '../../../core/net/free-port.ts'

async function listen (port: number): Promise<Server> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  return server
}

t.test('findFreePort() gives a bindable port below the kernel ephemeral range', async (t) => {
  const low = await readEphemeralLow()
  for (let i = 0; i < 20; i++) {
    const port = await findFreePort()
    t.ok(port >= 10_000 && port < low, `${port} is in [10000, ${low})`)
  }
  // It is free: we can listen on it ourselves.
  const server = await listen(await findFreePort())
  t.teardown(() => { server.close() })
})

t.test('findFreePort() passes over a port something already listens on', async (t) => {
  const low = await readEphemeralLow()
  const span = low - 10_000
  // The first candidate the fixed sequence draws, taken before the call.
  const taken = await findFreePort({ random: () => 0.5 })
  const server = await listen(taken)
  t.teardown(() => { server.close() })
  const draws = [0.5, 0.25]
  const port = await findFreePort({ random: () => draws.shift() ?? Math.random() })
  t.equal(taken, 10_000 + Math.floor(0.5 * span))
  t.equal(port, 10_000 + Math.floor(0.25 * span), 'the second draw, as the first is in use')
})
