// codeOf(): which code an error in `errors[]` gets, read from the error's
// structure (where graphql-js raised it), never from its message text.
import t from 'tap'
import { GraphQLError, buildSchema, parse, validate } from 'graphql'
import { ERROR_CODES, codeOf } from '../../../plugins/graphql/errors.ts'

const schema = buildSchema('type Query { block(number: Int!): String }')

/** The error graphql-js's parser throws for `source`. */
function parseError (source: string): GraphQLError {
  try {
    parse(source)
  } catch (error) {
    if (error instanceof GraphQLError) return error
    throw error
  }
  throw new Error(`${source} parsed`)
}

t.test('codeOf() gives a parser or lexer error the parse code', async (t) => {
  for (const source of ['{ block(number: 1) ', '{ block(number: "1) }', 'query ( { block }']) {
    t.equal(codeOf(parseError(source)), ERROR_CODES.PARSE, source)
  }
})

t.test('codeOf() gives a validation error the validation code, whatever its message says', async (t) => {
  const [unknownField] = validate(schema, parse('{ bogus }'))
  t.equal(codeOf(unknownField!), ERROR_CODES.VALIDATION, 'an unknown field')
  const [badArgument] = validate(schema, parse('{ block(number: "x") }'))
  t.equal(codeOf(badArgument!), ERROR_CODES.VALIDATION, 'an argument of the wrong type')
  // The same node-bound error, worded like a parse error, is still a validation error.
  const worded = new GraphQLError('Syntax Error: worded so, found by validation', { nodes: unknownField!.nodes })
  t.equal(codeOf(worded), ERROR_CODES.VALIDATION)
})

t.test('codeOf() does not call a parse error one that only says so', async (t) => {
  const resolverFailure = new GraphQLError('Syntax Error in a resolver', { originalError: new Error('Syntax Error: from a library'), path: ['block'] })
  t.equal(codeOf(resolverFailure), undefined, 'a resolver\'s failure stays internal (masked)')
  t.equal(codeOf(parseError('{')), ERROR_CODES.PARSE, 'while the parser\'s own is a parse error')
})

t.test('codeOf() keeps a code the error already carries', async (t) => {
  t.equal(codeOf(new GraphQLError('no such block', { extensions: { code: ERROR_CODES.NOT_FOUND } })), ERROR_CODES.NOT_FOUND)
})
