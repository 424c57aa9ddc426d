import { existsSync, readFileSync } from 'node:fs'

/** The package version, for /api-docs and later /api/v2/config/backend-version. */
export const PACKAGE_VERSION: string = readPackageVersion()

function readPackageVersion (): string {
  // From core/ when run from source, from dist/core/ when built.
  for (const relative of ['../package.json', '../../package.json']) {
    const url = new URL(relative, import.meta.url)
    if (existsSync(url)) return JSON.parse(readFileSync(url, 'utf8')).version
  }
  return '0.0.0'
}
