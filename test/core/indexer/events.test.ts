// The indexer's event feed: typed events in order to every subscriber, each
// subscription ended by its own function, and a listener that throws kept
// from the indexer's loop and from the other listeners.
import t from 'tap'
import pino from 'pino'
import { createIndexerEvents, nextEvent, toCommittedBlock, type IndexerEvent } from '../../../core/indexer/events.ts'
import { readNotice } from '../../../core/indexer/commit-feed.ts'
import { committedBlock } from '../../support/committed-blocks.ts'

const silent = pino({ level: 'silent' })
const block = (n: number): IndexerEvent => ({ type: 'block', blocks: [committedBlock(n)], storedHere: true })
const reorg: IndexerEvent = { type: 'reorg', ancestor: 4, removed: 2, storedHere: false }

t.test('createIndexerEvents() hands every event, in order, to each subscriber until it unsubscribes', async (t) => {
  const events = createIndexerEvents(silent)
  t.notOk(events.hasListeners())
  const first: IndexerEvent[] = []
  const second: IndexerEvent[] = []
  const stopFirst = events.subscribe((event) => first.push(event))
  events.subscribe((event) => second.push(event))
  t.ok(events.hasListeners())
  events.publish(block(5))
  events.publish(reorg)
  stopFirst()
  events.publish(block(6))
  t.same(first, [block(5), reorg])
  t.same(second, [block(5), reorg, block(6)])
})

t.test('createIndexerEvents() logs a listener that throws and goes on with the others', async (t) => {
  const logged: unknown[] = []
  const log = pino({ level: 'error' }, { write: (line: string) => { logged.push(JSON.parse(line)) } })
  const events = createIndexerEvents(log)
  const heard: IndexerEvent[] = []
  events.subscribe(() => { throw new Error('listener bug') })
  events.subscribe((event) => heard.push(event))
  t.doesNotThrow(() => events.publish(block(1)), 'the publisher (the indexer\'s loop) does not see the failure')
  t.same(heard, [block(1)])
  t.match(logged, [{ msg: 'an indexer event listener failed', event: 'block', err: { message: 'listener bug' } }])
})

t.test('nextEvent() resolves with the next event of its type and stops listening', async (t) => {
  const events = createIndexerEvents(silent)
  const next = nextEvent(events, 'reorg')
  events.publish(block(1))
  events.publish(reorg)
  t.same(await next, reorg)
  t.notOk(events.hasListeners())
  const controller = new AbortController()
  const aborted = nextEvent(events, 'block', controller.signal)
  controller.abort(new Error('gave up'))
  await t.rejects(aborted, { message: 'gave up' })
  t.notOk(events.hasListeners())
})

t.test('toCommittedBlock() keeps only what a reader can read back', async (t) => {
  const committed = committedBlock(3)
  t.same(toCommittedBlock({ ...committed, logs: [], state: {} } as never), committed)
})

t.test('readNotice() tells a commit from a rollback and ignores what it cannot read', async (t) => {
  const heard: string[] = []
  const handlers = { onCommit: (from: number, to: number) => heard.push(`commit ${from}-${to}`), onReorg: (ancestor: number, removed: number) => heard.push(`reorg ${ancestor} ${removed}`) }
  for (const payload of ['10 12', 'reorg 9 3', 'reorg 9', '1 2 3', 'x y', 'reorg a b', '']) readNotice(payload, handlers)
  t.same(heard, ['commit 10-12', 'reorg 9 3'])
})
