// The Etherscan-style /api as its tests read it: a GET that must answer 200,
// and the envelopes an answer is compared with.
import type { FastifyInstance } from 'fastify'

type Tap = { equal (found: unknown, wanted: unknown, message: string): unknown }

/** GET /api?<query> on `app`, checked to answer HTTP 200 (every action's answer does, errors too); its JSON. */
export const apiGetter = (t: Tap, app: FastifyInstance) => async (query: string): Promise<any> => {
  const response = await app.inject({ method: 'GET', url: `/api?${query}` })
  t.equal(response.statusCode, 200, query)
  return response.json()
}

export const ok = (result: unknown) => ({ status: '1', message: 'OK', result })
/** Etherscan's error: NOTOK, the reason as the result. */
export const notOk = (reason: string) => ({ status: '0', message: 'NOTOK', result: reason })
/** A list with nothing in it: no error, Etherscan's message for it. */
export const nothingFound = (message: string) => ({ status: '0', message, result: [] })
