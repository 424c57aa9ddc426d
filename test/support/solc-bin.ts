// A local stand-in for binaries.soliditylang.org/bin: list.json and the
// soljson builds it names, served over real HTTP. Each build is the solc
// package's own soljson.js under another version's name (the download is
// what is tested, not that version's compiler); its published keccak256 is
// the file's, unless a test gives a wrong one.
import { createServer, type Server } from 'node:http'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { keccak256 } from 'ethers'

type Tap = { teardown (fn: () => unknown): void }

export type SolcBin = {
  /** The directory to give SOLC_DOWNLOAD_URL: http://127.0.0.1:<port>/bin. */
  url: string
  /** Requests per path (/bin/list.json, /bin/soljson-...js). */
  requests: Map<string, number>
  /** The bytes every build serves. */
  body: Buffer
  /** Stops answering: connections are refused from then on. */
  close (): Promise<void>
}

/** A version the list names; `keccak256` overrides the published hash, `served: false` lists it but answers 404 for its file. */
export type ListedVersion = { longVersion: string, keccak256?: string, served?: boolean }

const SOLJSON = createRequire(import.meta.url).resolve('solc/soljson.js')

export async function startSolcBin (t: Tap, versions: ListedVersion[]): Promise<SolcBin> {
  const body = await readFile(SOLJSON)
  const realKeccak = keccak256(body)
  const builds = versions.map(({ longVersion, keccak256: published }) => {
    const [version, build] = longVersion.split('+') as [string, string]
    return { path: `soljson-v${longVersion}.js`, version, build, longVersion, keccak256: published ?? realKeccak, sha256: '0x' + '00'.repeat(32), urls: [] }
  })
  const served = new Set([...builds.filter((_, i) => versions[i]!.served !== false).map((b) => `/bin/${b.path}`), '/bin/soljson-v0.8.29-nightly.2024.10.1+commit.aaaaaaaa.js'])
  // solc-bin's list also holds nightlies; they must be left alone.
  const nightly = { path: 'soljson-v0.8.29-nightly.2024.10.1+commit.aaaaaaaa.js', version: '0.8.29', prerelease: 'nightly.2024.10.1', build: 'commit.aaaaaaaa', longVersion: '0.8.29-nightly.2024.10.1+commit.aaaaaaaa', keccak256: realKeccak, sha256: '0x' + '00'.repeat(32), urls: [] }
  const list = JSON.stringify({
    builds: [...builds, nightly],
    releases: Object.fromEntries(builds.map((b) => [b.version, b.path])),
    latestRelease: builds.at(-1)?.version
  })
  const requests = new Map<string, number>()
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname)
    requests.set(path, (requests.get(path) ?? 0) + 1)
    if (path === '/bin/list.json') return response.writeHead(200, { 'content-type': 'application/json' }).end(list)
    if (!served.has(path)) return response.writeHead(404).end('not found')
    response.writeHead(200, { 'content-type': 'application/javascript' }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const close = async () => {
    if (!server.listening) return
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
  t.teardown(close)
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}/bin`, requests, body, close }
}
