// Blockscout's verification routes: standard JSON input, flattened code and
// multi-part sources, as multipart forms (Blockscout's front end) or JSON.
// Verification runs before the answer: a success answers Blockscout's
// "verification started" and the contract's detail shows it at once; a
// failure answers 400 with the reason and stores nothing.
import type { FastifyError, FastifyRequest } from 'fastify'
import multipart from '@fastify/multipart'
import { VerifyInputInvalidError } from '../../core/errors.ts'
import type { VerificationRequest, Verifier } from '../../core/verify/index.ts'
import { checkStandardJson, flattenedInput, multiPartInput, parseStandardJson, readLibraries, type StandardJsonInput } from '../../core/verify/input.ts'
import { readLicenseType } from '../../core/verify/licenses.ts'
import { addressHashParams, message, validationError, type RestApp } from './schemas.ts'

/** Largest source or standard JSON file accepted, and most files in one request. */
const MAX_FILE_BYTES = 10 * 1024 * 1024
const MAX_FILES = 200

type UploadedFile = { filename: string, content: string }
type Body = Record<string, unknown> & {
  compiler_version: string
  contract_name?: string
  constructor_args?: string
  autodetect_constructor_args?: boolean
  license_type?: string | number
}

const commonFields = {
  compiler_version: { type: 'string', minLength: 1, description: 'v0.8.28+commit.7893614a (see verification/config)' },
  contract_name: { type: 'string', description: 'The contract to match: Name or path:Name; every contract compiled is tried without it' },
  constructor_args: { type: 'string', pattern: '^(0x)?([0-9a-fA-F]{2})*$', description: 'ABI-encoded constructor arguments' },
  autodetect_constructor_args: { type: 'boolean', description: 'Take the arguments from the creation transaction (default true)' },
  license_type: { type: ['string', 'integer'], description: 'A licence name or id of verification/config' }
} as const
const sourceFields = {
  is_optimization_enabled: { type: 'boolean' },
  optimization_runs: { type: 'integer', minimum: 0, maximum: 4294967295 },
  evm_version: { type: 'string' },
  libraries: { type: ['object', 'string'], description: 'Library name -> address (an object, or its JSON text in a form), linked by the compiler' }
} as const
const body = <const Properties extends Record<string, object>, const Required extends readonly string[]>(properties: Properties, required: Required) =>
  ({ type: 'object', required: ['compiler_version', ...required], properties: { ...commonFields, ...properties } } as const)
const responses = { 200: message, 400: message, 404: message, 422: validationError, 502: message, 503: message } as const

/** The uploaded files of a form (files[0], files[1]... or files), or a JSON body's `files` object (path -> content). */
function uploadedFiles (fields: Record<string, unknown>): UploadedFile[] {
  if (fields.files !== null && typeof fields.files === 'object' && !Array.isArray(fields.files) && !('filename' in fields.files)) {
    return Object.entries(fields.files as Record<string, unknown>).map(([filename, content]) => {
      if (typeof content !== 'string') throw new VerifyInputInvalidError(`file ${filename} is not text`)
      return { filename, content }
    })
  }
  return Object.entries(fields).filter(([key]) => /^files(\[\d+\])?$/.test(key)).flatMap(([, value]) => Array.isArray(value) ? value : [value])
    .filter((value): value is UploadedFile => value !== null && typeof value === 'object' && 'filename' in value)
}

function sourceSettings (b: Body) {
  return {
    optimization: b.is_optimization_enabled === true,
    runs: typeof b.optimization_runs === 'number' ? b.optimization_runs : 200,
    evmVersion: typeof b.evm_version === 'string' ? b.evm_version : undefined,
    libraries: readLibraries(b.libraries)
  }
}

export async function verificationRoutes (app: RestApp, { verifier }: { verifier: Verifier }): Promise<void> {
  // Here only: no other route of the API takes multipart bodies.
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: MAX_FILE_BYTES, files: MAX_FILES, fieldSize: MAX_FILE_BYTES },
    async onFile (part) {
      (part as unknown as { value: UploadedFile }).value = { filename: part.filename, content: (await part.toBuffer()).toString('utf8') }
    }
  })
  // The multipart parser's own errors carry no status: a body cut short or without its boundary is the client's, not a 500.
  const handled = new WeakSet<FastifyRequest>()
  app.addHook('preHandler', async (request) => { handled.add(request) })
  // Translated only: the REST scope's handler (sendError, channel blockscout) answers it.
  app.setErrorHandler(async (error: FastifyError, request) => {
    if (error.statusCode === undefined && !handled.has(request) && request.isMultipart()) throw new VerifyInputInvalidError(`the multipart body could not be read (${error.message})`)
    throw error
  })

  async function run (request: { params: { address_hash_param: string }, body: Body }, method: VerificationRequest['method'], input: StandardJsonInput) {
    const b = request.body
    const result = await verifier.verify({
      address: request.params.address_hash_param,
      compilerVersion: b.compiler_version,
      input,
      contractName: b.contract_name === '' ? undefined : b.contract_name,
      constructorArgs: b.constructor_args,
      autodetectConstructorArgs: b.autodetect_constructor_args ?? true,
      licenseType: readLicenseType(b.license_type),
      method
    })
    return { message: result.status === 'already-verified' ? 'Already verified' : 'Smart-contract verification started' }
  }

  app.post('/smart-contracts/:address_hash_param/verification/via/standard-input', {
    schema: {
      tags: ['smart-contracts'],
      summary: 'Verify with a standard JSON input: multipart files[0] (the .json file) and fields, or JSON with `input` (the standard JSON, object or text)',
      params: addressHashParams,
      body: body({ input: { type: ['object', 'string'] } }, []),
      response: responses
    }
  }, async (request) => {
    const b = request.body
    let input: StandardJsonInput
    if (b.input !== undefined) input = typeof b.input === 'string' ? parseStandardJson(b.input) : checkStandardJson(b.input)
    else {
      const json = uploadedFiles(b).find((f) => f.filename.endsWith('.json')) ?? uploadedFiles(b)[0]
      if (json === undefined) throw new VerifyInputInvalidError('JSON files not found: send the standard JSON input as files[0]')
      input = parseStandardJson(json.content)
    }
    return await run(request, 'standard-input', input)
  })

  app.post('/smart-contracts/:address_hash_param/verification/via/flattened-code', {
    schema: {
      tags: ['smart-contracts'],
      summary: 'Verify one flattened Solidity source with the compiler settings given',
      params: addressHashParams,
      body: body({ source_code: { type: 'string' }, ...sourceFields }, ['source_code']),
      response: responses
    }
  }, async (request) => {
    const b = request.body
    return await run(request, 'flattened-code', flattenedInput(String(b.source_code), b.contract_name || undefined, sourceSettings(b)))
  })

  app.post('/smart-contracts/:address_hash_param/verification/via/multi-part', {
    schema: {
      tags: ['smart-contracts'],
      summary: 'Verify several Solidity sources (multipart files[N], named by their paths, or JSON `files`: path -> content) with the compiler settings given',
      params: addressHashParams,
      body: body({ files: { type: 'object' }, ...sourceFields }, []),
      response: responses
    }
  }, async (request) => {
    const b = request.body
    const files = uploadedFiles(b)
    if (files.length === 0) throw new VerifyInputInvalidError('no source files: send them as files[0], files[1]...')
    return await run(request, 'multi-part', multiPartInput(Object.fromEntries(files.map((f) => [f.filename, f.content])), sourceSettings(b)))
  })
}
