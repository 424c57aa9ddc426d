// Downloading soljson builds into SOLC_CACHE_DIR (SOLC_DOWNLOAD=true). The
// build a version names is looked up in the official list (list.json under
// SOLC_DOWNLOAD_URL), fetched, and written to the cache only once its
// keccak256 is the one the list publishes: a build that differs could verify
// anything. Several requests for one version share one download.
import { randomBytes } from 'node:crypto'
import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { keccak256 } from 'ethers'
import { VerifyCompilerChecksumError, VerifyCompilerDownloadFailedError } from '../errors.ts'

export type SolcDownloadOptions = {
  cacheDir: string
  /** The directory of list.json and the soljson builds: https://binaries.soliditylang.org/bin. */
  baseUrl: string
}

/** One release build of list.json (nightlies are not offered). */
export type ListedBuild = { path: string, longVersion: string, keccak256: string }

export type SolcDownloader = {
  /** The build a version names (v0.8.20+commit.a1b79de6, or v0.8.20 for the release); undefined when the list has none. */
  find (wanted: string): Promise<ListedBuild | undefined>
  /** Puts a listed build into the cache directory and answers its path; one download however many ask at once. */
  download (build: ListedBuild): Promise<string>
  /** Every release build the list publishes, as v0.8.20+commit.a1b79de6; throws when the list cannot be read. */
  listed (): Promise<string[]>
}

/** A release build's file, as solc-bin names it; its name becomes a file name here, so nothing else is taken. */
const RELEASE_PATH = /^soljson-v(\d+\.\d+\.\d+\+commit\.[0-9a-f]{8})\.js$/
/** list.json is re-read after this long: a release published meanwhile becomes available. */
const LIST_TTL_MS = 10 * 60 * 1000
const LIST_TIMEOUT_MS = 30_000
const BUILD_TIMEOUT_MS = 5 * 60 * 1000
/** list.json is a few MB and a soljson build 8 to 30 MB; a server sending more is not solc-bin. */
const MAX_LIST_BYTES = 32 * 1024 * 1024
const MAX_BUILD_BYTES = 64 * 1024 * 1024

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)

/** A response's body, refused past `max` bytes without reading the rest. */
async function readCapped (response: Response, max: number): Promise<Buffer> {
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of response.body ?? []) {
    size += chunk.length
    if (size > max) throw new Error(`the answer is larger than ${max} bytes`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

/**
 * The download site gave no HTTP answer at all (refused, unknown host, no
 * route, timed out): the gateway is off-line or the site is down. The
 * compiler names the version and the remedies (GW_ERR_VERIFY_COMPILER_OFFLINE).
 */
export class SolcSiteUnreachableError extends Error {
  constructor (readonly site: string, readonly reason: string) {
    super(`${site} cannot be reached (${reason})`)
  }
}

/** undici's "fetch failed" carries the socket's error as its cause: ECONNREFUSED, ENOTFOUND... */
function unreachableReason (error: unknown): string {
  const cause = (error as { cause?: { code?: string, message?: string } }).cause
  return (cause?.message ?? '') !== '' ? cause!.message! : cause?.code ?? (error as Error).message
}

async function fetchBody (site: string, url: string, timeoutMs: number, max: number): Promise<Buffer> {
  let response: Response
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' })
  } catch (error) {
    throw new SolcSiteUnreachableError(site, unreachableReason(error))
  }
  if (!response.ok) {
    await response.body?.cancel()
    throw new Error(`${url} answered HTTP ${response.status}`)
  }
  return await readCapped(response, max)
}

/** The release builds of list.json, by their long version; entries that are not well-formed releases are left out. */
function readList (text: string): { builds: Map<string, ListedBuild>, releases: Map<string, string> } {
  const parsed: unknown = JSON.parse(text)
  if (!isObject(parsed) || !Array.isArray(parsed.builds)) throw new Error('list.json has no builds')
  const builds = new Map<string, ListedBuild>()
  for (const entry of parsed.builds as unknown[]) {
    if (!isObject(entry) || typeof entry.path !== 'string' || typeof entry.keccak256 !== 'string') continue
    const match = RELEASE_PATH.exec(entry.path)
    if (match === null || entry.longVersion !== match[1] || !/^0x[0-9a-f]{64}$/i.test(entry.keccak256)) continue
    builds.set('v' + match[1], { path: entry.path, longVersion: match[1]!, keccak256: entry.keccak256.toLowerCase() })
  }
  const releases = new Map(Object.entries(isObject(parsed.releases) ? parsed.releases : {})
    .flatMap(([version, path]) => typeof path === 'string' && RELEASE_PATH.test(path) ? [['v' + version, 'v' + RELEASE_PATH.exec(path)![1]] as const] : []))
  return { builds, releases }
}

export function createSolcDownloader ({ cacheDir, baseUrl }: SolcDownloadOptions): SolcDownloader {
  const base = baseUrl.replace(/\/+$/, '')
  let list: { at: number, read: Promise<ReturnType<typeof readList>> } | undefined
  const downloads = new Map<string, Promise<string>>()

  async function readListOnce (wanted: string): Promise<ReturnType<typeof readList>> {
    if (list === undefined || Date.now() - list.at > LIST_TTL_MS) {
      const read = fetchBody(base, `${base}/list.json`, LIST_TIMEOUT_MS, MAX_LIST_BYTES).then((body) => readList(body.toString('utf8')))
      list = { at: Date.now(), read }
      // A failed read is not kept: the next request tries again.
      read.catch(() => { if (list?.read === read) list = undefined })
    }
    try {
      return await list.read
    } catch (error) {
      if (error instanceof SolcSiteUnreachableError) throw error
      throw new VerifyCompilerDownloadFailedError(wanted, `the list of builds could not be read (${(error as Error).message})`)
    }
  }

  async function downloadBuild (build: ListedBuild): Promise<string> {
    const version = 'v' + build.longVersion
    let body: Buffer
    try {
      body = await fetchBody(base, `${base}/${build.path}`, BUILD_TIMEOUT_MS, MAX_BUILD_BYTES)
    } catch (error) {
      if (error instanceof SolcSiteUnreachableError) throw error
      throw new VerifyCompilerDownloadFailedError(version, (error as Error).message)
    }
    const hash = keccak256(body)
    if (hash !== build.keccak256) throw new VerifyCompilerChecksumError(version, hash, build.keccak256)
    // Written aside and renamed: a reader of the directory never sees half a build under a build's name.
    await mkdir(cacheDir, { recursive: true })
    const target = join(cacheDir, build.path)
    const partial = join(cacheDir, `.${build.path}.${randomBytes(4).toString('hex')}.part`)
    try {
      await writeFile(partial, body)
      await rename(partial, target)
    } catch (error) {
      await rm(partial, { force: true })
      throw new VerifyCompilerDownloadFailedError(version, `${cacheDir} could not be written (${(error as Error).message})`)
    }
    return target
  }

  return {
    async find (wanted) {
      const { builds, releases } = await readListOnce(wanted)
      return builds.get(releases.get(wanted) ?? wanted)
    },
    async listed () {
      return [...(await readListOnce('the list of builds')).builds.keys()]
    },
    async download (build) {
      let running = downloads.get(build.path)
      if (running === undefined) {
        running = downloadBuild(build).finally(() => downloads.delete(build.path))
        downloads.set(build.path, running)
      }
      return await running
    }
  }
}
