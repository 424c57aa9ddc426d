// Blockscout (Absinthe) accepts fields and arguments in snake_case as well as
// the camelCase of its introspection, and answers under the spelling the query
// used. Rewriting the document before validation gives the same: a snake_case
// field becomes its camelCase name aliased back to what the client wrote.
// Errors about a renamed node are told back in the client's spelling
// (`clientMessage`): the client never wrote the camelCase name.
import { Kind, visit, type ASTNode, type DocumentNode, type GraphQLError, type NameNode } from 'graphql'

const camel = (name: string): string => name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase())

/**
 * Renamed field and argument nodes, with their name before and after. A
 * field's selection set is kept too: graphql-js points at it, not at the
 * field, when a leaf field is given one.
 */
const renamed = new WeakMap<ASTNode, { written: string, camel: string }>()

function isSnake (name: NameNode): boolean {
  return name.value.includes('_') && !name.value.startsWith('__')
}

/** Renames in place: mercurius validates and executes the very document object its hooks receive. */
export function camelCaseDocument (document: DocumentNode): void {
  visit(document, {
    enter (node: ASTNode) {
      if (node.kind === Kind.FIELD && isSnake(node.name)) {
        const field = node as { alias?: NameNode, name: NameNode }
        const names = { written: node.name.value, camel: camel(node.name.value) }
        renamed.set(node, names)
        if (node.selectionSet !== undefined) renamed.set(node.selectionSet, names)
        field.alias ??= { kind: Kind.NAME, value: names.written }
        field.name = { kind: Kind.NAME, value: names.camel }
      } else if (node.kind === Kind.ARGUMENT && isSnake(node.name)) {
        const names = { written: node.name.value, camel: camel(node.name.value) }
        renamed.set(node, names)
        ;(node as { name: NameNode }).name = { kind: Kind.NAME, value: names.camel }
      }
    }
  })
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * The error's message with each name it quotes of a node it is about put back
 * as the client wrote it: `Cannot query field "noSuchField"` for a query that
 * said `no_such_field`. A quoted name is `"name"`, or `"name {` where
 * graphql-js suggests a selection.
 */
export function clientMessage (error: GraphQLError): string {
  let message = error.message
  for (const node of error.nodes ?? []) {
    const names = renamed.get(node)
    if (names !== undefined) message = message.replace(new RegExp(`"${escape(names.camel)}(?=[" ])`, 'g'), `"${names.written}`)
  }
  return message
}
