// core/config.ts types each variable from its entry in the table (issue 37):
// type 'integer' reads as a number, 'boolean' as a boolean, an enum as its
// words, and a variable without a default may be undefined. The type
// assertions below are checked by `tsc --noEmit -p .` (npm run lint's type
// check); the tests check that the values read at run time are what the
// types say, for every variable of the table, so a new one is covered too.
import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readVariables, VARIABLES, type Variables } from '../../core/config.ts'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
const holds = <T extends true>(): T | undefined => undefined

holds<Equal<Variables['PORT'], number>>()
holds<Equal<Variables['GRAPHQL_ENABLED'], boolean>>()
holds<Equal<Variables['HOST'], string>>()
holds<Equal<Variables['GETH_GCMODE'], 'archive' | 'full'>>()
holds<Equal<Variables['DATABASE_URL'], string | undefined>>()
holds<Equal<Variables['FAUCET_ENABLED'], boolean | undefined>>()
// @ts-expect-error: a name outside the table is no variable
holds<Equal<Variables['NOT_A_VARIABLE'], unknown>>()

const sameType = (spec: (typeof VARIABLES)[string], value: unknown): boolean =>
  spec.enum !== undefined
    ? spec.enum.includes(value as string)
    : spec.type === 'integer' ? Number.isInteger(value) : spec.type === 'boolean' ? typeof value === 'boolean' : typeof value === 'string'

t.test('readVariables() gives every variable with a default a value of its entry\'s type, and leaves the others undefined', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tg-config-types-'))
  t.teardown(async () => await rm(dataDir, { recursive: true, force: true }))
  const values: Record<string, unknown> = readVariables({ DATA_DIR: dataDir })
  t.ok(Object.keys(VARIABLES).length > 50, `${Object.keys(VARIABLES).length} variables`)
  for (const [name, spec] of Object.entries(VARIABLES)) {
    if (name === 'DATA_DIR') continue
    if (spec.default === undefined) t.equal(values[name], undefined, `${name} has no default: unset`)
    else t.ok(sameType(spec, values[name]), `${name} is a ${spec.type} (${JSON.stringify(values[name])})`)
  }
})

t.test('readVariables() gives a set variable its entry\'s type: numbers and booleans from their text', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tg-config-types-'))
  t.teardown(async () => await rm(dataDir, { recursive: true, force: true }))
  const values = readVariables({ DATA_DIR: dataDir, PORT: '8080', GRAPHQL_ENABLED: 'false', FAUCET_ENABLED: 'true', GETH_GCMODE: 'full' })
  t.equal(values.PORT, 8080)
  t.equal(values.GRAPHQL_ENABLED, false)
  t.equal(values.FAUCET_ENABLED, true)
  t.equal(values.GETH_GCMODE, 'full')
})
