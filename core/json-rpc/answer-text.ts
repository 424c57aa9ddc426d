// JSON-RPC answers as text: a kept result written into a response for the
// request's own id, and Geth's answer to one call read into a FreshAnswer,
// its result cut out unparsed where Geth's encoder makes that safe.
import { RpcUnavailableError, type RpcItemAnswer } from '../rpc/client.ts'
import type { FreshAnswer } from './answer-cache.ts'
import type { JsonRpcId } from './errors.ts'

/** How Geth's answer to a call sent with id 0 starts when it has a result. */
const RESULT_PREFIX = '{"jsonrpc":"2.0","id":0,"result":'
const SPACE = 0x20
const CLOSING_BRACE = 0x7d

/** A response around a result's JSON text, without parsing it again. */
export function keptAnswer (id: JsonRpcId, resultText: string): string {
  return '{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":' + resultText + '}'
}

export function freshFromItem ({ result, error, upstream }: RpcItemAnswer): FreshAnswer {
  const fresh: FreshAnswer = error === undefined ? { text: JSON.stringify(result) ?? 'null', result } : { error }
  if (upstream !== undefined) fresh.upstream = upstream
  return fresh
}

/**
 * Geth's answer to one call (id 0). Its encoder writes the result last, right after the id: cut out, it needs no parsing.
 * `upstream`: the node that answered instead of the local one.
 */
export function freshFromBody (body: string, upstream?: string): FreshAnswer {
  let end = body.length
  while (end > 0 && body.charCodeAt(end - 1) <= SPACE) end--
  if (body.startsWith(RESULT_PREFIX) && body.charCodeAt(end - 1) === CLOSING_BRACE) {
    const text = body.slice(RESULT_PREFIX.length, end - 1)
    return upstream === undefined ? { text } : { text, upstream }
  }
  let parsed: RpcItemAnswer
  try {
    parsed = JSON.parse(body) as RpcItemAnswer
  } catch {
    throw new RpcUnavailableError(`the node answered with a body that is not JSON: ${body.slice(0, 200)}`)
  }
  return freshFromItem(upstream === undefined ? parsed : { ...parsed, upstream })
}
