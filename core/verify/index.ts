// Contract verification: the compiler pool, verifications run now or queued
// under a guid (Etherscan's verifysourcecode / checkverifystatus), proxy
// detection and the stored contracts. Plugins and the decoding layer use
// what this file exports.
import { randomUUID } from 'node:crypto'
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import type { RpcClient } from '../rpc/client.ts'
import { createCompiler, type Compiler, type CompilerOptions } from './compiler.ts'
import { createProxyDetector, type ProxyDetector } from './proxy.ts'
import { verifyContract, type VerificationRequest, type VerificationResult } from './verify.ts'
import { checkSourcesSize } from './input.ts'
import type { Queries } from '../queries/index.ts'
import { hearVerifications } from './notify.ts'
import type { ChannelListener } from '../db/listen.ts'

export { findVerifiedContract, findVerifiedContracts, findVerifiedTwin, listVerifiedContracts, countVerifiedContracts, type VerifiedContract, type AbiItem, type AbiParameter } from './store.ts'
export { readDeployedCode, runtimeCodeHash, type VerificationRequest, type VerificationResult, type VerificationMethod } from './verify.ts'
export type { Compiler, CompilerOptions } from './compiler.ts'
export type { ProxyInfo } from './proxy.ts'

/** A queued verification's state, in Etherscan's words for checkverifystatus. */
export type VerificationJob =
  | { status: 'pending' }
  | { status: 'verified' | 'already-verified', result: VerificationResult }
  | { status: 'failed', error: string }

/** Told after each verification ends, as Blockscout's socket tells the verification form (event verification_result). */
export type VerificationEvent = { address: string, status: 'success' } | { address: string, status: 'error', errors: Record<string, string[]> }

/** What one verification request may weigh (VERIFY_MAX_BODY_BYTES, VERIFY_MAX_SOURCES_BYTES). */
export type VerificationLimits = {
  /** A multipart or form body, all parts together: the routes that read such bodies hold them to it. */
  maxBodyBytes: number
  /** The sources' UTF-8 bytes together: verify() and submit() refuse more with GW_ERR_VERIFY_SOURCES_TOO_LARGE. */
  maxSourcesBytes: number
}

export type Verifier = {
  compiler: Compiler
  limits: VerificationLimits
  /**
   * Calls `listener` after every verification this instance ran; returns the
   * unsubscribe. A listener's promise (a cache it drops) is awaited before the
   * verification answers, so that a read made after the answer sees the
   * verified contract.
   */
  subscribe (listener: (event: VerificationEvent) => void | Promise<void>): () => void
  /**
   * Calls `listener` with the address of every contract stored as verified by
   * any instance on the database (this one's too, a moment after its
   * `subscribe` listeners), or with undefined when such notices may have been
   * missed (the listening connection was lost); returns the unsubscribe.
   * Heard only once `listen()` was called.
   */
  subscribeStored (listener: (address: string | undefined) => void): () => void
  /** Starts hearing verifications (subscribeStored); resolves after the first attempt, which is retried when it fails. */
  listen (): Promise<void>
  /** Verifies now; throws a coded GW_ERR_VERIFY_* error. */
  verify (request: VerificationRequest): Promise<VerificationResult>
  /** Queues a verification and returns its guid at once; sources over the limit throw at once. */
  submit (request: VerificationRequest): string
  /** A queued verification's state; undefined for a guid never given (or forgotten after JOB_TTL_MS). */
  job (guid: string): VerificationJob | undefined
  /** Undefined without a node (proxies are read from it). */
  proxies: ProxyDetector | undefined
  /** Stops hearing verifications and compilations under way, and waits for queued verifications to end. */
  close (): Promise<void>
}

export type VerifierOptions = {
  db: Knex
  queries: Queries
  rpc: RpcClient | undefined
  log: Logger
  compiler: CompilerOptions
  /** For the connection that hears verifications (listen()). */
  databaseUrl: string
  limits: VerificationLimits
  /** Told each verification's result, for the metrics: full, partial, already-verified, or the failure's error code (`error` when uncoded). */
  observe?: (result: string) => void
}

/** The form field Blockscout names in a failure's errors, by our error code; the sources otherwise. */
const ERROR_FIELDS: Record<string, string> = {
  GW_ERR_VERIFY_COMPILER_UNAVAILABLE: 'compiler_version',
  GW_ERR_VERIFY_COMPILER_MISMATCH: 'compiler_version',
  GW_ERR_VERIFY_CONSTRUCTOR_ARGS_MISMATCH: 'constructor_arguments',
  GW_ERR_VERIFY_NOT_CONTRACT: 'address_hash'
}

/** Jobs are remembered this long after they end: Etherscan clients poll for a minute or two. */
const JOB_TTL_MS = 60 * 60 * 1000
const MAX_JOBS = 10_000

export function createVerifier ({ db, queries, rpc, log, compiler: compilerOptions, databaseUrl, limits, observe }: VerifierOptions): Verifier {
  const compiler = createCompiler(compilerOptions)
  const jobs = new Map<string, { job: VerificationJob, at: number }>()
  const running = new Set<Promise<unknown>>()
  const listeners = new Set<(event: VerificationEvent) => void | Promise<void>>()
  const tell = async (event: VerificationEvent): Promise<void> => {
    await Promise.all([...listeners].map(async (listener) => {
      try {
        await listener(event)
      } catch (err) {
        log.warn({ err, address: event.address }, 'a listener of contract verification failed')
      }
    }))
  }
  const storedListeners = new Set<(address: string | undefined) => void>()
  let hearing: ChannelListener | undefined
  let closed = false

  function forgetOld (): void {
    const now = Date.now()
    for (const [guid, entry] of jobs) {
      if (now - entry.at > JOB_TTL_MS || jobs.size > MAX_JOBS) jobs.delete(guid)
      else break
    }
  }

  const verifier: Verifier = {
    compiler,
    limits,
    proxies: rpc === undefined ? undefined : createProxyDetector(rpc),
    subscribe (listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    subscribeStored (listener) {
      storedListeners.add(listener)
      return () => storedListeners.delete(listener)
    },
    async listen () {
      if (hearing !== undefined || closed) return
      hearing = await hearVerifications({
        databaseUrl,
        log,
        onVerified: (address) => { for (const listener of storedListeners) listener(address) }
      })
      if (closed) await hearing.close()
    },
    async verify (request) {
      let result: VerificationResult
      try {
        checkSourcesSize(request.input, limits.maxSourcesBytes)
        result = await verifyContract({ db, queries, rpc, compiler }, request)
      } catch (error) {
        const { code, message } = error as { code?: string, message: string }
        observe?.(code?.startsWith('GW_ERR_') === true ? code : 'error')
        await tell({ address: request.address.toLowerCase(), status: 'error', errors: { [ERROR_FIELDS[code ?? ''] ?? 'contract_source_code']: [message] } })
        throw error
      }
      observe?.(result.status === 'already-verified' ? result.status : result.contract.matchType)
      await tell({ address: result.contract.address, status: 'success' })
      log.info({ address: result.contract.address, name: result.contract.name, match: result.contract.matchType, status: result.status, method: request.method }, 'contract verification')
      return result
    },
    submit (request) {
      checkSourcesSize(request.input, limits.maxSourcesBytes)
      forgetOld()
      const guid = randomUUID().replace(/-/g, '')
      jobs.set(guid, { job: { status: 'pending' }, at: Date.now() })
      const work = verifier.verify(request).then(
        (result) => jobs.set(guid, { job: { status: result.status, result }, at: Date.now() }),
        (error: Error & { statusCode?: number }) => {
          if ((error.statusCode ?? 500) >= 500) log.warn({ err: error, address: request.address }, 'contract verification failed')
          jobs.set(guid, { job: { status: 'failed', error: error.message }, at: Date.now() })
        })
      running.add(work)
      work.finally(() => running.delete(work)).catch(() => undefined)
      return guid
    },
    job: (guid) => jobs.get(guid)?.job,
    async close () {
      closed = true
      await hearing?.close()
      await compiler.close()
      await Promise.allSettled([...running])
    }
  }
  return verifier
}
