// Solidity compilers for verification: the solc package's bundled build
// (works offline) and soljson builds an operator put in SOLC_CACHE_DIR, named
// as solc-bin names them (soljson-v0.8.20+commit.a1b79de6.js), and with
// SOLC_DOWNLOAD (on by default) those downloaded into it on first request
// (solc-download.ts).
// Every run happens in a worker thread of its own, under a time cap and a
// heap cap, at most one per CPU at once and a few more waiting.
import { readdir } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Worker } from 'node:worker_threads'
import { VerifyBusyError, VerifyCompileTimeoutError, VerifyCompilerFailedError, VerifyCompilerOfflineError, VerifyCompilerUnavailableError } from '../errors.ts'
import { createSolcDownloader, SolcSiteUnreachableError, type SolcDownloadOptions } from './solc-download.ts'

export type CompilerOptions = {
  /** Directory of soljson builds; undefined or missing means the bundled compiler only. */
  cacheDir: string | undefined
  timeoutMs: number
  memoryMb: number
  /** Compilations at once; the CPUs by default. */
  concurrency?: number
  /** Compilations waiting for a slot before more are refused (GW_ERR_VERIFY_BUSY); MAX_WAITING by default. */
  maxWaiting?: number
  /** Where to download versions missing from cacheDir (into it); undefined downloads nothing. */
  download?: Pick<SolcDownloadOptions, 'baseUrl'>
}

/** What solc answers to a standard JSON input (the parts verification reads). */
export type CompilerOutput = {
  errors?: Array<{ severity: string, formattedMessage?: string, message: string }>
  contracts?: Record<string, Record<string, CompiledContractOutput>>
}

export type CompiledContractOutput = {
  abi: unknown[]
  evm: {
    bytecode: { object: string, linkReferences?: Record<string, Record<string, Array<{ start: number, length: number }>>> }
    deployedBytecode: {
      object: string
      linkReferences?: Record<string, Record<string, Array<{ start: number, length: number }>>>
      immutableReferences?: Record<string, Array<{ start: number, length: number }>>
    }
  }
}

export type Compiler = {
  /** The bundled compiler's version in Blockscout's spelling: v0.8.28+commit.7893614a. */
  bundledVersion (): Promise<string>
  /** Every version that can compile here: the bundled one first, then the cached ones, newest first. */
  listVersions (): Promise<string[]>
  /**
   * The versions a verification may ask for: listVersions(), then, with
   * SOLC_DOWNLOAD on, every release the download site lists (newest first).
   * A list that cannot be read within LIST_WAIT_MS leaves them out.
   */
  offeredVersions (): Promise<string[]>
  /** The available version a request names (with or without the v, or a bare 0.8.28); throws GW_ERR_VERIFY_COMPILER_UNAVAILABLE. */
  resolveVersion (requested: string): Promise<string>
  /** Compiles a standard JSON input with an available version (from resolveVersion). */
  compile (version: string, input: object): Promise<CompilerOutput>
  /** Stops the runs under way (they fail with GW_ERR_VERIFY_COMPILER_FAILED): a closing gateway does not wait out a compilation. */
  close (): Promise<void>
}

const resolveModule = createRequire(import.meta.url).resolve
/**
 * A run's worker thread: loads the bundled compiler or a cached soljson
 * build (solc/wrapper gives it the package's interface) and compiles one
 * input. Plain CommonJS given as text: a worker does not inherit tsx's
 * loader, so a .ts file could not be its entry.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const { solcPath, wrapperPath, soljsonPath, input } = workerData
const solc = soljsonPath === undefined ? require(solcPath) : require(wrapperPath)(require(soljsonPath))
parentPort.postMessage({ version: solc.version(), output: input === undefined ? undefined : solc.compile(input) })
`
const MODULE_PATHS = { solcPath: resolveModule('solc'), wrapperPath: resolveModule('solc/wrapper') }
const LONG_VERSION = /^v\d+\.\d+\.\d+\+commit\.[0-9a-f]{8}$/
const CACHED_SOLJSON = /^soljson-(v\d+\.\d+\.\d+\+commit\.[0-9a-f]{8})\.js$/
const NOT_DOWNLOADED = 'an operator can add its soljson build to SOLC_CACHE_DIR, or set SOLC_DOWNLOAD=true'
/** Loading the bundled compiler to ask its version compiles nothing a client sent: a short compile cap must not fail it on a busy machine. */
const VERSION_TIMEOUT_MS = 120_000
/** How long the verification config waits for the download site's list before answering without it. */
const LIST_WAIT_MS = 3000

/** Compilations waiting for a slot beyond those running; more are refused (503), not queued without end. */
const MAX_WAITING = 16

type WorkerAnswer = { version: string, output?: string }

/** "0.8.28+commit.7893614a.Emscripten.clang" -> "v0.8.28+commit.7893614a". */
export const blockscoutVersion = (solcVersion: string): string => 'v' + solcVersion.replace(/^v/, '').replace(/^(\d+\.\d+\.\d+\+commit\.[0-9a-f]{8}).*$/, '$1')

const semverKey = (version: string): number[] => version.slice(1).split('+')[0]!.split('.').map(Number)
const newestFirst = (a: string, b: string): number => { const [x, y] = [semverKey(a), semverKey(b)]; return (y[0]! - x[0]!) || (y[1]! - x[1]!) || (y[2]! - x[2]!) }

export function createCompiler (options: CompilerOptions): Compiler {
  const slots = options.concurrency ?? availableParallelism()
  const maxWaiting = options.maxWaiting ?? MAX_WAITING
  let running = 0
  const waiting: Array<() => void> = []
  let bundled: Promise<string> | undefined
  const live = new Set<Worker>()
  const downloader = options.download === undefined || options.cacheDir === undefined
    ? undefined
    : createSolcDownloader({ cacheDir: options.cacheDir, baseUrl: options.download.baseUrl })
  const unavailable = async (version: string, hint: string) => new VerifyCompilerUnavailableError(version, (await compiler.listVersions()).join(', '), hint)

  async function acquire (): Promise<void> {
    if (running < slots) { running++; return }
    if (waiting.length >= maxWaiting) throw new VerifyBusyError(String(waiting.length))
    await new Promise<void>((resolve) => waiting.push(resolve))
  }
  function release (): void {
    const next = waiting.shift()
    if (next !== undefined) next()
    else running--
  }

  /** One run in a fresh worker: a terminated or crashed one leaves nothing behind. */
  async function run (soljsonPath: string | undefined, input: string | undefined, timeoutMs = options.timeoutMs): Promise<WorkerAnswer> {
    await acquire()
    try {
      return await new Promise<WorkerAnswer>((resolve, reject) => {
        const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ...MODULE_PATHS, soljsonPath, input }, resourceLimits: { maxOldGenerationSizeMb: options.memoryMb } })
        live.add(worker)
        worker.once('exit', () => live.delete(worker))
        const timer = setTimeout(() => {
          reject(new VerifyCompileTimeoutError(String(timeoutMs)))
          worker.terminate().catch(() => undefined)
        }, timeoutMs)
        worker.once('message', (answer: WorkerAnswer) => { clearTimeout(timer); resolve(answer); worker.terminate().catch(() => undefined) })
        worker.once('error', (error) => { clearTimeout(timer); reject(new VerifyCompilerFailedError(error.message)) })
        worker.once('exit', (code) => { clearTimeout(timer); reject(new VerifyCompilerFailedError(`the compiler's thread ended (exit code ${code})`)) })
      })
    } finally {
      release()
    }
  }

  async function cachedVersions (): Promise<Map<string, string>> {
    if (options.cacheDir === undefined) return new Map()
    const names = await readdir(options.cacheDir).catch(() => [] as string[])
    return new Map(names.flatMap((name) => {
      const match = CACHED_SOLJSON.exec(name)
      return match === null ? [] : [[match[1]!, join(options.cacheDir!, name)] as const]
    }))
  }

  const compiler: Compiler = {
    async bundledVersion () {
      // Asked of the compiler itself, in a worker: loading it costs the request thread a second and 100 MB.
      bundled ??= run(undefined, undefined, Math.max(options.timeoutMs, VERSION_TIMEOUT_MS)).then((answer) => blockscoutVersion(answer.version))
      bundled.catch(() => { bundled = undefined })
      return await bundled
    },
    async listVersions () {
      const [own, cached] = await Promise.all([compiler.bundledVersion(), cachedVersions()])
      const others = [...cached.keys()].filter((v) => v !== own).sort(newestFirst)
      return [own, ...others]
    },
    async offeredVersions () {
      const [here, listed] = await Promise.all([
        compiler.listVersions(),
        downloader === undefined ? [] : Promise.race([downloader.listed(), sleep(LIST_WAIT_MS, [], { ref: false })]).catch(() => [] as string[])
      ])
      const available = new Set(here)
      return [...here, ...listed.filter((v) => !available.has(v)).sort(newestFirst)]
    },
    async resolveVersion (requested) {
      const wanted = requested.trim().replace(/^v?/, 'v').replace(/^(v\d+\.\d+\.\d+\+commit\.[0-9a-f]{8}).*$/, '$1')
      const versions = await compiler.listVersions()
      const found = versions.find((v) => v === wanted) ?? versions.find((v) => v.startsWith(wanted + '+'))
      if (found !== undefined) return found
      if (downloader === undefined) throw await unavailable(requested, NOT_DOWNLOADED)
      try {
        const build = await downloader.find(wanted)
        if (build === undefined) throw await unavailable(requested, 'it is not a release the compiler list publishes')
        await downloader.download(build)
        return 'v' + build.longVersion
      } catch (error) {
        if (!(error instanceof SolcSiteUnreachableError)) throw error
        // Named as solc-bin names it when the request gives the commit: the file an operator would add.
        const file = LONG_VERSION.test(wanted) ? `soljson-${wanted}.js` : `its soljson build (soljson-${wanted}+commit.<hash>.js)`
        throw new VerifyCompilerOfflineError(requested, error.site, error.reason, (await compiler.listVersions()).join(', '), file)
      }
    },
    async compile (version, input) {
      const own = await compiler.bundledVersion()
      const path = version === own ? undefined : (await cachedVersions()).get(version)
      if (version !== own && path === undefined) throw await unavailable(version, NOT_DOWNLOADED)
      const answer = await run(path, JSON.stringify(input))
      // A misnamed file in the cache would verify against the wrong compiler.
      if (blockscoutVersion(answer.version) !== version) throw new VerifyCompilerFailedError(`the soljson file for ${version} holds ${answer.version}`)
      return JSON.parse(answer.output!) as CompilerOutput
    },
    async close () {
      await Promise.allSettled([...live].map(async (worker) => await worker.terminate()))
    }
  }
  return compiler
}
