// Blockscout's scalars. Inputs are checked here, so a malformed hash is a
// GraphQL validation error naming the argument, never a database error.
// Outputs: hashes and byte strings lower-case 0x-hex, numbers as decimal strings.
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql'
import { ERROR_CODES } from './errors.ts'

const invalid = (message: string): GraphQLError => new GraphQLError(message, { extensions: { code: ERROR_CODES.BAD_USER_INPUT } })

function stringInput (name: string, pattern: RegExp, expected: string, normalise: (s: string) => string = (s) => s): Pick<GraphQLScalarType, 'parseValue' | 'parseLiteral'> {
  const check = (value: unknown): string => {
    if (typeof value !== 'string' || !pattern.test(value)) throw invalid(`Invalid ${name}: expected ${expected}, got ${JSON.stringify(value)}`)
    return normalise(value)
  }
  return {
    parseValue: check,
    parseLiteral: (node: ValueNode) => check(node.kind === Kind.STRING ? node.value : undefined)
  }
}

const lower = (s: string): string => s.toLowerCase()
const asString = (value: unknown): string => String(value)

function hexScalar (name: string, description: string, bytes: number | undefined): GraphQLScalarType {
  const pattern = bytes === undefined ? /^0x([0-9a-fA-F]{2})*$/ : new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`)
  const expected = bytes === undefined ? '0x and an even number of hex digits' : `0x and ${bytes * 2} hex digits`
  return new GraphQLScalarType({ name, description, serialize: (v) => lower(asString(v)), ...stringInput(name, pattern, expected, lower) })
}

function decimalScalar (name: string, description: string, pattern: RegExp, expected: string): GraphQLScalarType {
  const input = stringInput(name, pattern, expected)
  return new GraphQLScalarType({
    name,
    description,
    serialize: asString,
    parseValue: (value) => input.parseValue(typeof value === 'number' ? String(value) : value),
    parseLiteral: (node) => input.parseLiteral(node.kind === Kind.INT || node.kind === Kind.FLOAT ? { kind: Kind.STRING, value: node.value } : node)
  })
}

/** "2025-09-15T13:52:12.000000Z" from a Unix time in seconds, as Blockscout prints it. */
export const isoTimestamp = (seconds: number): string => new Date(seconds * 1000).toISOString().slice(0, -1) + '000Z'

export const SCALARS = {
  AddressHash: hexScalar('AddressHash', 'Address', 20),
  FullHash: hexScalar('FullHash', 'Hash', 32),
  NonceHash: new GraphQLScalarType({ name: 'NonceHash', serialize: asString, ...stringInput('NonceHash', /^0x[0-9a-fA-F]{16}$/, '0x and 16 hex digits', lower) }),
  Data: hexScalar('Data', 'Bytes', undefined),
  Wei: decimalScalar('Wei', 'Wei', /^\d+$/, 'a whole number of wei'),
  Decimal: decimalScalar('Decimal', 'Decimal', /^-?\d+(\.\d+)?$/, 'a decimal number'),
  DateTime: new GraphQLScalarType({
    name: 'DateTime',
    serialize: (v) => typeof v === 'number' ? isoTimestamp(v) : (v as Date).toISOString(),
    ...stringInput('DateTime', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/, 'an ISO 8601 UTC time')
  }),
  Json: new GraphQLScalarType({
    name: 'Json',
    serialize: (v) => typeof v === 'string' ? v : JSON.stringify(v),
    parseValue: (v) => v,
    parseLiteral: (node) => node.kind === Kind.STRING ? node.value : undefined
  })
}
