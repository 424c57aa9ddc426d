// The README documents every configuration variable, error code and method;
// these checks keep it in step with the code.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { VARIABLES } from '../core/config.ts'
import { ERROR_CODES } from '../core/errors.ts'
import { JSON_RPC_ERRORS } from '../core/json-rpc/errors.ts'
import { METHODS } from '../core/json-rpc/methods.ts'

const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8')

t.test('every configuration variable has a README row with its default', async (t) => {
  for (const [name, spec] of Object.entries(VARIABLES)) {
    const row = readme.split('\n').find((line) => line.startsWith(`| \`${name}\` |`))
    t.ok(row, `${name} has a row`)
    if (spec.default !== undefined && name !== 'DATA_DIR') t.match(row, `\`${spec.default}\``, `${name} shows its default`)
  }
})

t.test('every gateway error code is in the README table', async (t) => {
  for (const code of ERROR_CODES) t.match(readme, `| \`${code}\` |`, code)
})

t.test('every JSON-RPC error code is in the README table with its message', async (t) => {
  for (const { code, message } of Object.values(JSON_RPC_ERRORS)) t.match(readme, `| \`${code}\` | ${message} |`, String(code))
})

t.test('every allowed method is listed in the README', async (t) => {
  for (const method of Object.keys(METHODS)) t.match(readme, `\`${method}\``, method)
})
