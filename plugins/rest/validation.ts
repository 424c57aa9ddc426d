// Blockscout validates with OpenApiSpex and answers 422 with
// {"errors":[{"title":"Invalid value","source":{"pointer":"/x"},"detail":...}]};
// ajv's errors are translated into the same details.
import { Ajv, type ErrorObject } from 'ajv'
import type { FastifyInstance } from 'fastify'

const ajv = new Ajv({ coerceTypes: true, allErrors: true, removeAdditional: false, useDefaults: true, strict: false, verbose: true })

export function useBlockscoutValidation (scope: FastifyInstance): void {
  scope.setValidatorCompiler(({ schema }) => ajv.compile(schema))
  scope.setSchemaErrorFormatter((errors) => Object.assign(new Error('Invalid value'), { blockscoutErrors: errors.map(toBlockscoutError) }))
}

export type BlockscoutError = { title: 'Invalid value', source: { pointer: string }, detail: string }

function toBlockscoutError (e: ErrorObject): BlockscoutError {
  const field = e.instancePath.replace(/^\//, '')
  const pointer = (name: string) => ({ pointer: `/${name}` })
  switch (e.keyword) {
    case 'additionalProperties': {
      const name = String(e.params.additionalProperty)
      return { title: 'Invalid value', source: pointer(name), detail: `Unexpected field: ${name}` }
    }
    case 'required':
    case 'dependencies': {
      const name = String(e.params.missingProperty)
      return { title: 'Invalid value', source: pointer(name), detail: `Missing field: ${name}` }
    }
    case 'pattern':
      return { title: 'Invalid value', source: pointer(field), detail: `Invalid format. Expected ~r/${e.params.pattern}/` }
    case 'type':
      return { title: 'Invalid value', source: pointer(field), detail: `Invalid ${e.params.type}. Got: string` }
    case 'minimum':
      return { title: 'Invalid value', source: pointer(field), detail: `${JSON.stringify(e.data)} is smaller than inclusive minimum ${e.params.limit}` }
    case 'maximum':
      return { title: 'Invalid value', source: pointer(field), detail: `${JSON.stringify(e.data)} is larger than inclusive maximum ${e.params.limit}` }
    case 'enum':
      return { title: 'Invalid value', source: pointer(field), detail: 'Invalid value for enum' }
    default:
      return { title: 'Invalid value', source: pointer(field), detail: e.message ?? 'Invalid value' }
  }
}
