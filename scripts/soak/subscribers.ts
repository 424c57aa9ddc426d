// WebSocket clients of the soak: each subscribes to newHeads on /ws and counts
// the heads it is sent, so the report shows subscribers kept hearing blocks
// through the load.
import WebSocket from 'ws'

export type HeadSubscribers = {
  /** Closes them; the heads each heard, and whether each was still open. */
  stop (): Array<{ heads: number, open: boolean }>
}

export async function startHeadSubscribers (httpUrl: string, count: number): Promise<HeadSubscribers> {
  const clients = await Promise.all(Array.from({ length: count }, async () => {
    const socket = new WebSocket(httpUrl.replace(/^http/, 'ws') + '/ws')
    const state = { heads: 0, open: false }
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { method?: string }
      if (message.method === 'eth_subscription') state.heads++
    })
    socket.on('close', () => { state.open = false })
    socket.on('error', () => { state.open = false })
    await new Promise<void>((resolve, reject) => { socket.once('open', () => resolve()); socket.once('error', reject) })
    state.open = true
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }))
    return { socket, state }
  }))
  return {
    stop: () => clients.map(({ socket, state }) => {
      const heard = { heads: state.heads, open: state.open }
      socket.close()
      return heard
    })
  }
}
