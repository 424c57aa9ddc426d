// createSubscriptionHub() on a scripted node connection: one node
// subscription per key however many listeners, each event serialised once for
// all, ended with the last listener, and set up again on a new connection
// after the old one closes (the listeners untouched).
import t from 'tap'
import pino from 'pino'
import { setTimeout as sleep } from 'node:timers/promises'
import { createSubscriptionHub, type OpenNodeSocket } from '../../../core/json-rpc/subscriptions.ts'
import { subscriptionRequest } from '../../../core/json-rpc/subscription-request.ts'
import { RpcUnavailableError } from '../../../core/rpc/client.ts'

type Handlers = Parameters<OpenNodeSocket>[0]

function scriptedNode () {
  const node = { calls: [] as Array<[string, unknown[]]>, opened: 0, handlers: undefined as Handlers | undefined, down: false, next: 1 }
  const openSocket: OpenNodeSocket = async (handlers) => {
    if (node.down) throw new RpcUnavailableError('down')
    node.opened++
    node.handlers = handlers
    return {
      async call<T> (method: string, params: unknown[]) {
        node.calls.push([method, params])
        return (method === 'eth_subscribe' ? `0xnode${node.next++}` : true) as T
      },
      close: () => handlers.onClose()
    }
  }
  return { node, openSocket }
}

const log = pino({ level: 'silent' })

t.test('createSubscriptionHub() makes one node subscription per key and ends it with its last listener', async (t) => {
  const { node, openSocket } = scriptedNode()
  const hub = createSubscriptionHub({ openSocket, log })
  const heard: string[][] = [[], [], []]
  const heads = subscriptionRequest(['newHeads'])
  const stops = await Promise.all(heard.slice(0, 2).map(async (list) => await hub.subscribe(heads, (text) => list.push(text))))
  const stopLogs = await hub.subscribe(subscriptionRequest(['logs', {}]), (text) => heard[2]!.push(text))
  t.same(node.calls.filter(([m]) => m === 'eth_subscribe').map(([, p]) => p), [['newHeads'], ['logs', {}]])
  t.equal(node.opened, 1)
  node.handlers!.onNotification('0xnode1', { number: '0x1' })
  t.same(heard, [['{"number":"0x1"}'], ['{"number":"0x1"}'], []])
  stops[0]!()
  stops[0]!()
  t.equal(hub.stats().nodeSubscriptions, 2, 'a listener left, one remains')
  stops[1]!()
  stopLogs()
  await sleep(0)
  t.same(node.calls.filter(([m]) => m === 'eth_unsubscribe').map(([, p]) => p), [['0xnode1'], ['0xnode2']])
  t.same(hub.stats(), { topics: 0, nodeSubscriptions: 0, nodeSubscribeCalls: 2 })
  node.handlers!.onNotification('0xnode1', { number: '0x2' })
  t.equal(heard[1]!.length, 1, 'nothing heard after leaving')
  hub.close()
})

t.test('createSubscriptionHub() subscribes again on a new connection after the node\'s closes', async (t) => {
  const { node, openSocket } = scriptedNode()
  const hub = createSubscriptionHub({ openSocket, log })
  t.teardown(() => hub.close())
  const heard: string[] = []
  await hub.subscribe(subscriptionRequest(['newHeads']), (text) => heard.push(text))
  node.down = true
  node.handlers!.onClose()
  t.equal(hub.stats().nodeSubscriptions, 0)
  hub.restoreNow()
  await sleep(10)
  t.equal(hub.stats().nodeSubscriptions, 0, 'the node is still down')
  node.down = false
  hub.restoreNow()
  await sleep(10)
  t.equal(node.opened, 2)
  t.same(hub.stats(), { topics: 1, nodeSubscriptions: 1, nodeSubscribeCalls: 2 })
  node.handlers!.onNotification('0xnode2', 7)
  t.same(heard, ['7'], 'the listener hears the new subscription')
})

t.test('createSubscriptionHub() rejects a subscribe the node cannot take, keeping nothing', async (t) => {
  const { node, openSocket } = scriptedNode()
  node.down = true
  const hub = createSubscriptionHub({ openSocket, log })
  t.teardown(() => hub.close())
  await t.rejects(hub.subscribe(subscriptionRequest(['newHeads']), () => {}), RpcUnavailableError)
  t.same(hub.stats(), { topics: 0, nodeSubscriptions: 0, nodeSubscribeCalls: 0 })
})
