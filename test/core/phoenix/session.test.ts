// The Phoenix protocol without a network: frames, joins and leaves, heartbeats,
// errors that keep the session, and the two caps (channels, queued frames).
import t from 'tap'
import { createChannelHub } from '../../../core/phoenix/hub.ts'
import { createPhoenixSession, CLOSE_TOO_SLOW } from '../../../core/phoenix/session.ts'
import { refuseTopic } from '../../../core/phoenix/topics.ts'
import { parseFrame } from '../../../core/phoenix/frames.ts'

const ADDRESS = `0x${'ab'.repeat(20)}`

function open (options: { maxChannels?: number, maxQueued?: number, written?: boolean } = {}) {
  const hub = createChannelHub()
  const sent: unknown[][] = []
  const closed: Array<[number, string]> = []
  const session = createPhoenixSession({
    transport: {
      send (text, done) {
        sent.push(JSON.parse(text))
        // A client that reads: written at once; one that does not: never.
        if (options.written !== false) done()
      },
      close: (code, reason) => { closed.push([code, reason]) }
    },
    hub,
    refuseJoin: refuseTopic,
    maxChannels: options.maxChannels ?? 100,
    maxQueued: options.maxQueued ?? 1000
  })
  const send = (frame: unknown[]) => session.receive(JSON.stringify(frame))
  return { hub, sent, closed, session, send }
}

t.test('parseFrame() takes the v2 array and nothing else', async (t) => {
  t.same(parseFrame('["1","2","blocks:new_block","phx_join",{}]'), { joinRef: '1', ref: '2', topic: 'blocks:new_block', event: 'phx_join', payload: {} })
  t.same(parseFrame('[null,"2","phoenix","heartbeat",{}]')?.joinRef, null)
  for (const bad of ['', 'null', '{}', '[]', '["1","2","t","e"]', '[1,"2","t","e",{}]', '["1","2","","e",{}]', `["1","2","${'x'.repeat(201)}","e",{}]`, '["1","2","t",5,{}]']) {
    t.equal(parseFrame(bad), undefined, bad)
  }
})

t.test('a join is answered ok, broadcasts reach the topic, a leave replies and closes the channel', async (t) => {
  const { hub, sent, send } = open()
  send(['1', '1', 'blocks:new_block', 'phx_join', {}])
  t.same(sent.shift(), ['1', '1', 'blocks:new_block', 'phx_reply', { status: 'ok', response: {} }])
  hub.broadcast('blocks:new_block', 'new_block', { n: 1 })
  hub.broadcast('transactions:new_transaction', 'transaction', { transaction: 1 })
  t.same(sent.splice(0), [[null, null, 'blocks:new_block', 'new_block', { n: 1 }]], 'only the joined topic')
  send(['1', '2', 'blocks:new_block', 'phx_leave', {}])
  t.same(sent.splice(0), [
    ['1', '2', 'blocks:new_block', 'phx_reply', { status: 'ok', response: {} }],
    ['1', '1', 'blocks:new_block', 'phx_close', {}]
  ])
  hub.broadcast('blocks:new_block', 'new_block', { n: 2 })
  t.same(sent, [], 'nothing after the leave')
  t.equal(hub.hasSubscribers('blocks:new_block'), false)
})

t.test('heartbeats are answered on the phoenix topic', async (t) => {
  const { sent, send } = open()
  send([null, '7', 'phoenix', 'heartbeat', {}])
  t.same(sent, [[null, '7', 'phoenix', 'phx_reply', { status: 'ok', response: {} }]])
})

t.test('unknown topics, bad addresses, unknown events and malformed frames answer errors and keep the session', async (t) => {
  const { sent, send, session, closed } = open()
  send(['1', '1', 'nope:1', 'phx_join', {}])
  send(['2', '2', 'addresses:0x12', 'phx_join', {}])
  send(['3', '3', 'blocks:0xzz', 'phx_join', {}])
  send(['4', '4', 'constructor:x', 'phx_join', {}])
  session.receive('not json')
  session.receive('{"topic":"phoenix"}')
  send(['5', '5', 'addresses:new_address', 'shout', {}])
  t.same(sent.splice(0), [
    ['1', '1', 'nope:1', 'phx_reply', { status: 'error', response: { reason: 'unmatched topic' } }],
    ['2', '2', 'addresses:0x12', 'phx_reply', { status: 'error', response: { reason: 'Invalid address hash' } }],
    ['3', '3', 'blocks:0xzz', 'phx_reply', { status: 'error', response: { reason: 'Invalid address hash' } }],
    ['4', '4', 'constructor:x', 'phx_reply', { status: 'error', response: { reason: 'unmatched topic' } }],
    [null, null, 'phoenix', 'phx_error', { reason: 'malformed message: expected [join_ref, ref, topic, event, payload]' }],
    [null, null, 'phoenix', 'phx_error', { reason: 'malformed message: expected [join_ref, ref, topic, event, payload]' }],
    ['5', '5', 'addresses:new_address', 'phx_reply', { status: 'error', response: { reason: 'unmatched topic' } }]
  ])
  send(['6', '6', `addresses:${ADDRESS}`, 'phx_join', {}])
  t.same(sent.shift(), ['6', '6', `addresses:${ADDRESS}`, 'phx_reply', { status: 'ok', response: {} }], 'the session still joins')
  t.equal(session.channels(), 1)
  t.same(closed, [])
})

t.test('a join past the channel cap is refused; joining a topic again does not count twice', async (t) => {
  const { sent, send, session } = open({ maxChannels: 2 })
  send(['1', '1', 'blocks:new_block', 'phx_join', {}])
  send(['2', '2', 'blocks:new_block', 'phx_join', {}])
  send(['3', '3', 'transactions:new_transaction', 'phx_join', {}])
  send(['4', '4', 'tokens:0x1', 'phx_join', {}])
  t.same(sent.map((f) => (f[4] as { status: string }).status), ['ok', 'ok', 'ok', 'error'])
  t.same((sent[3]![4] as { response: unknown }).response, { reason: 'too many channels' })
  t.equal(session.channels(), 2)
})

t.test('a client that does not read is closed once maxQueued frames wait, and leaves its topics', async (t) => {
  const { hub, sent, send, closed } = open({ maxQueued: 3, written: false })
  send(['1', '1', 'blocks:new_block', 'phx_join', {}])
  for (let n = 0; n < 5; n++) hub.broadcast('blocks:new_block', 'new_block', { n })
  t.equal(sent.length, 3, 'the reply and two broadcasts queued, no more')
  t.same(closed, [[CLOSE_TOO_SLOW, 'too many messages queued']])
  t.equal(hub.hasSubscribers('blocks:new_block'), false)
})

t.test('a client that reads is never cut off', async (t) => {
  const { hub, sent, send, closed } = open({ maxQueued: 3 })
  send(['1', '1', 'blocks:new_block', 'phx_join', {}])
  for (let n = 0; n < 50; n++) hub.broadcast('blocks:new_block', 'new_block', { n })
  t.equal(sent.length, 51)
  t.same(closed, [])
})
