// Each JSON-RPC call's outcome label (core/json-rpc/outcomes.ts): ok or the
// error's code, bounded to the codes JSON-RPC and Geth use, read from Geth's
// answer text without parsing a result.
import t from 'tap'
import { outcomeLabel, outcomeOf, outcomeOfBody } from '../../../core/json-rpc/outcomes.ts'

t.test('outcomeLabel() keeps JSON-RPC\'s reserved codes and Geth\'s revert, and folds any other into other', async (t) => {
  t.equal(outcomeLabel(-32601), '-32601')
  t.equal(outcomeLabel(-32000), '-32000')
  t.equal(outcomeLabel(-32768), '-32768')
  t.equal(outcomeLabel(3), '3')
  for (const code of [-31999, -32769, 4001, 0, 1.5, '3', null, undefined, 1e30]) t.equal(outcomeLabel(code), 'other', String(code))
})

t.test('outcomeOf() reads an answer: a kept text and no answer (a notification) are ok', async (t) => {
  t.equal(outcomeOf('{"jsonrpc":"2.0","id":1,"result":"0x1"}'), 'ok')
  t.equal(outcomeOf(undefined), 'ok')
  t.equal(outcomeOf({ jsonrpc: '2.0', id: 1, result: null }), 'ok')
  t.equal(outcomeOf({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params' } }), '-32602')
})

t.test('outcomeOfBody() reads Geth\'s answer from its start, and parses only what does not start as Geth writes a result', async (t) => {
  t.equal(outcomeOfBody(7, '{"jsonrpc":"2.0","id":7,"result":"0xabc"}\n'), 'ok')
  t.equal(outcomeOfBody('a"b', '{"jsonrpc":"2.0","id":"a\\"b","result":{"error":{"code":3}}}'), 'ok', 'an error inside the result is the result\'s')
  t.equal(outcomeOfBody(7, '{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"nonce too low"}}'), '-32000')
  t.equal(outcomeOfBody(7, '{"id":7,"jsonrpc":"2.0","error":{"code":3,"message":"execution reverted"}}'), '3', 'another node\'s order')
  t.equal(outcomeOfBody(7, '{"id":7,"jsonrpc":"2.0","result":"0x1"}'), 'ok')
  t.equal(outcomeOfBody(7, 'not json'), 'other')
  t.equal(outcomeOfBody(undefined, ''), 'ok', 'a notification')
})
