// Blockscout (Absinthe) accepts fields and arguments in snake_case as well as
// the camelCase of its introspection, and answers under the spelling the query
// used. Rewriting the document before validation gives the same: a snake_case
// field becomes its camelCase name aliased back to what the client wrote.
import { Kind, visit, type ASTNode, type DocumentNode, type NameNode } from 'graphql'

const camel = (name: string): string => name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase())

function isSnake (name: NameNode): boolean {
  return name.value.includes('_') && !name.value.startsWith('__')
}

/** Renames in place: mercurius validates and executes the very document object its hooks receive. */
export function camelCaseDocument (document: DocumentNode): void {
  visit(document, {
    enter (node: ASTNode) {
      if (node.kind === Kind.FIELD && isSnake(node.name)) {
        const field = node as { alias?: NameNode, name: NameNode }
        field.alias ??= { kind: Kind.NAME, value: node.name.value }
        field.name = { kind: Kind.NAME, value: camel(node.name.value) }
      } else if (node.kind === Kind.ARGUMENT && isSnake(node.name)) {
        (node as { name: NameNode }).name = { kind: Kind.NAME, value: camel(node.name.value) }
      }
    }
  })
}
