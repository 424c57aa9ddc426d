// Blockscout's Etherscan-style API at /api?module=...&action=...: one route,
// dispatched on module and action through the table in actions.ts. Errors
// answer in Etherscan's form (status "0", message "NOTOK", the reason as the
// result) with HTTP 200, as Etherscan answers them (a missing or unknown
// module or action too), 503 while the database is away. The proxy module
// answers JSON-RPC's object instead (proxy.ts).
import fp from 'fastify-plugin'
import { Ajv, type ValidateFunction } from 'ajv'
import formbody from '@fastify/formbody'
import type { FastifyReply } from 'fastify'
import type { App } from '../app.ts'
import { ETHERSCAN_MODULES, type EtherscanAction } from './actions.ts'
import { JSON_RPC_ANSWER_PROPERTIES, envelopeSchema, notOk, type Envelope, type JsonRpcText } from './envelope.ts'
import { NotOkError } from './params.ts'
import { sendError } from '../send-error.ts'

export const ETHERSCAN_PATH = '/api'
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

type Query = Record<string, string | undefined>

/** Etherscan's words for a module or action missing or unknown. */
const INVALID_MODULE = 'Error! Missing Or invalid Module name'
const INVALID_ACTION = 'Error! Missing Or invalid Action name'

/** The actions answering in the envelope, whose results make its schema's (the proxy module's answer JSON-RPC's object). */
const actions = Object.values(ETHERSCAN_MODULES).flatMap((byAction) => Object.values(byAction)).filter((a) => a.answersAsJsonRpc !== true)

/** /api's documented querystring: module, action and every action's parameters. */
const querystring = {
  type: 'object',
  properties: {
    module: { type: 'string', description: `One of: ${Object.keys(ETHERSCAN_MODULES).join(', ')}` },
    action: {
      type: 'string',
      description: Object.entries(ETHERSCAN_MODULES).map(([module, byAction]) =>
        `${module}: ${Object.entries(byAction).map(([name, a]) => `${name} (${a.summary})`).join(', ')}`).join('; ')
    },
    ...documentedParams()
  }
} as const

/**
 * Every action's parameters. A name several actions take with different
 * meanings (address: one, up to 20, or a log's emitter) says each, with the
 * actions it applies to.
 */
function documentedParams (): Record<string, { type: string, description: string }> {
  const uses = new Map<string, { type: string, byDescription: Map<string, string[]> }>()
  for (const [module, byAction] of Object.entries(ETHERSCAN_MODULES)) {
    for (const [action, { params }] of Object.entries(byAction)) {
      for (const [name, { type, description }] of Object.entries(params)) {
        const use = uses.get(name) ?? { type, byDescription: new Map() }
        use.byDescription.set(description, [...use.byDescription.get(description) ?? [], `${module}.${action}`])
        uses.set(name, use)
      }
    }
  }
  return Object.fromEntries([...uses].map(([name, { type, byDescription }]) => [name, {
    type,
    description: byDescription.size === 1
      ? [...byDescription.keys()][0]!
      : [...byDescription].map(([description, where]) => `${where.join(', ')}: ${description}`).join('; ')
  }]))
}

// Compiled on an action's first call: compiling every action's validator when
// the module loads cost about 0.4 s of CPU in every process that builds the app.
let ajv: Ajv | undefined
const paramValidators = new Map<EtherscanAction, ValidateFunction>()
function paramValidatorOf (action: EtherscanAction): ValidateFunction {
  let validate = paramValidators.get(action)
  if (validate === undefined) {
    ajv ??= new Ajv({ allErrors: false })
    validate = ajv.compile({ type: 'object', properties: action.params })
    paramValidators.set(action, validate)
  }
  return validate
}

/** The envelope's schema with the proxy module's JSON-RPC fields beside (envelope.ts says why not a branch of its own). */
function withJsonRpcAnswer (envelope: ReturnType<typeof envelopeSchema>) {
  return { ...envelope, properties: { ...envelope.properties, ...JSON_RPC_ANSWER_PROPERTIES } }
}

/** A POST body's parameters as the query's: text (JSON numbers and booleans as written), a repeated field's first value. */
/**
 * The query string as validated: its schema is built from the actions table
 * when the module loads, so the type provider cannot read its parameters'
 * names; each is a string, or absent.
 */
const queryOf = (query: unknown): Query => query as Query

function bodyParams (body: unknown): Query {
  if (body === null || typeof body !== 'object') return {}
  return Object.fromEntries(Object.entries(body as Record<string, unknown>).flatMap(([key, value]) => {
    const first = Array.isArray(value) ? value[0] : value
    return ['string', 'number', 'boolean'].includes(typeof first) ? [[key, String(first)]] : []
  }))
}

async function etherscan (app: App): Promise<void> {
  // The contract module's verifysourcecode queues on the verifier (plugins/verify).
  // The proxy module calls through the JSON-RPC endpoint's handler (plugins/rpc-proxy).
  const context = { db: app.db.knex, queries: app.queries, decoder: app.decoder, verifier: app.verifier, jsonRpc: app.jsonRpcHandler }
  /** A parameter the action cannot use answers status "0" with the reason. */
  const runAction = async (handler: EtherscanAction, params: Record<string, string>): Promise<Envelope | JsonRpcText> => {
    try {
      return await handler.run(params, context)
    } catch (error) {
      if (error instanceof NotOkError) return error.envelope
      throw error
    }
  }
  await app.register(async (scope: App) => {
    // Form bodies here only: hardhat-verify and forge POST verifysourcecode as a form, a whole standard JSON
    // input in it (VERIFY_MAX_BODY_BYTES). Over it: 413, the rest unread, the connection closed.
    await scope.register(formbody, { bodyLimit: app.verifier.limits.maxBodyBytes })
    scope.setErrorHandler(async (error, request, reply) => await sendError(request, reply, 'etherscan', error))

    async function dispatch (params: Query, reply: FastifyReply) {
      const { module, action } = params
      const byAction = module !== undefined && Object.hasOwn(ETHERSCAN_MODULES, module) ? ETHERSCAN_MODULES[module]! : undefined
      if (byAction === undefined) return notOk(INVALID_MODULE)
      const handler = action !== undefined && Object.hasOwn(byAction, action) ? byAction[action]! : undefined
      if (handler === undefined) return notOk(INVALID_ACTION)
      const missing = handler.required.find((name) => params[name] === undefined)
      if (missing !== undefined) return notOk(`Query parameter '${missing}' is required`)
      if (!paramValidatorOf(handler)(params)) return notOk('Invalid parameters')
      const answer = await runAction(handler, params as Record<string, string>)
      if (!('jsonRpc' in answer)) return answer
      // The endpoint's text as it is: a string with a JSON type is sent unserialized.
      return await reply.code(answer.status).type(JSON_CONTENT_TYPE).send(answer.body)
    }

    const response = {
      // An error's reason, nothing found's null or [], or an action's result: the serializer takes the first branch a result fits.
      200: withJsonRpcAnswer(envelopeSchema({ anyOf: [{ type: ['string', 'null'] }, ...actions.map((a) => a.result)] })),
      400: envelopeSchema({ type: 'string' })
    }
    scope.get(ETHERSCAN_PATH, {
      // Refused keys and spent budgets answer in this API's envelope (plugins/auth/channel.ts).
      config: { access: 'etherscan' },
      schema: {
        tags: ['etherscan'],
        summary: 'Blockscout\'s Etherscan-style API: module and action select what is asked',
        querystring,
        response
      }
    }, async (request, reply) => await dispatch(queryOf(request.query), reply))
    // Etherscan's clients POST verifysourcecode (its source is too long for a URL), module and action in the query or the body.
    scope.post(ETHERSCAN_PATH, {
      config: { access: 'etherscan', keyInBody: true },
      schema: {
        tags: ['etherscan'],
        summary: 'The same API by POST (form or JSON body; the body\'s parameters win over the query\'s): what verifysourcecode is sent by',
        querystring,
        body: { type: 'object', properties: { module: { type: ['string'] }, action: { type: ['string'] } } },
        response
      }
    }, async (request, reply) => await dispatch({ ...queryOf(request.query), ...bodyParams(request.body) }, reply))
  })
}

export default fp(etherscan, { name: 'etherscan', fastify: '5.x', dependencies: ['db', 'verify', 'interpreter', 'rpc-proxy'] })
