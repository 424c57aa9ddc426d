// Answers as text: a kept result written in for the request's own id, and
// Geth's answer to one call read without parsing its result.
import t from 'tap'
import { freshFromBody, freshFromItem, keptAnswer } from '../../../core/json-rpc/answer-text.ts'

t.test('keptAnswer() writes the request\'s own id around the result text, as JSON.stringify would', async (t) => {
  for (const id of [7, 'a"b', null, 0, 1.5]) {
    const text = keptAnswer(id, '{"number":"0x1"}')
    t.equal(text, JSON.stringify({ jsonrpc: '2.0', id, result: { number: '0x1' } }))
  }
})

t.test('freshFromBody() cuts the result out of Geth\'s answer and reads anything else', async (t) => {
  t.same(freshFromBody('{"jsonrpc":"2.0","id":0,"result":{"a":[1,"}"]}}\n'), { text: '{"a":[1,"}"]}' })
  t.same(freshFromBody('{"jsonrpc":"2.0","id":0,"result":null}'), { text: 'null' })
  t.same(freshFromBody('{"jsonrpc":"2.0","id":0,"error":{"code":3,"message":"execution reverted","data":"0x01"}}\n'),
    { error: { code: 3, message: 'execution reverted', data: '0x01' } })
  t.same(freshFromBody('{ "id": 0, "jsonrpc": "2.0", "result": "0x1" }'), { text: '"0x1"', result: '0x1' }, 'another spelling is parsed')
  t.throws(() => freshFromBody('<html>'), /not JSON/)
})

t.test('freshFromBody() and freshFromItem() carry the upstream that answered (never kept by the cache)', async (t) => {
  const u = 'http://127.0.0.1:1'
  t.same(freshFromBody('{"jsonrpc":"2.0","id":0,"result":"0x1"}', u), { text: '"0x1"', upstream: u }, 'cut out')
  t.same(freshFromBody('{"id":0,"jsonrpc":"2.0","result":"0x1"}', u), { text: '"0x1"', result: '0x1', upstream: u }, 'parsed')
  t.same(freshFromBody('{"jsonrpc":"2.0","id":0,"error":{"code":3,"message":"reverted"}}', u), { error: { code: 3, message: 'reverted' }, upstream: u })
  t.same(freshFromItem({ result: null, upstream: u }), { text: 'null', result: null, upstream: u })
  t.same(freshFromBody('{"jsonrpc":"2.0","id":0,"result":"0x1"}'), { text: '"0x1"' }, 'the local node\'s: no upstream')
})
