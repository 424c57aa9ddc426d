// Transaction.summary (a gateway extension): the interpreter's summaries of
// the transaction (core/interpreter), cached per transaction in PostgreSQL.
import type { Interpreter, Summary } from '../../../core/interpreter/index.ts'
import type { GraphqlTransaction } from '../../../core/queries/graphql/records.ts'

export function summaryResolvers (interpreter: Interpreter) {
  return {
    summary: async (t: GraphqlTransaction): Promise<Summary[] | null> => await interpreter.summaries(t.hash) ?? null
  }
}

export const TransactionSummary = {
  summaryTemplate: (s: Summary) => s.summary_template,
  summaryTemplateVariables: (s: Summary) => s.summary_template_variables
}
