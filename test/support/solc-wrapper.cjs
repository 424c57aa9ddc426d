#!/usr/bin/env node
// A `solc` command over the solc npm package, for tools that want a native
// compiler binary and would download one (forge: `--use <this file>`), where
// that download is blocked. It answers the two calls they make as the
// binary does: `--version` (the last line `Version: ...`, which forge
// parses) and `--standard-json` (the input on stdin, the output on stdout).
// Imports not in the input are read from --base-path, --include-path and the
// working directory, as solc's own import callback does.
'use strict'
const { readFileSync } = require('node:fs')
const { resolve } = require('node:path')
const solc = require('solc')

const args = process.argv.slice(2)
if (args.includes('--version')) {
  process.stdout.write(`solc, the solidity compiler commandline interface\nVersion: ${solc.version()}\n`)
  process.exit(0)
}
if (!args.includes('--standard-json')) {
  process.stderr.write(`this solc answers --version and --standard-json only (given: ${args.join(' ')})\n`)
  process.exit(1)
}
const roots = args.flatMap((arg, i) => arg === '--base-path' || arg === '--include-path' ? [resolve(args[i + 1] ?? '.')] : [])
roots.push(process.cwd())
function findImports (path) {
  for (const root of roots) {
    try { return { contents: readFileSync(resolve(root, path), 'utf8') } } catch {}
  }
  return { error: `File not found: ${path}` }
}
process.stdout.write(solc.compile(readFileSync(0, 'utf8'), { import: findImports }) + '\n')
