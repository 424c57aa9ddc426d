// A summary as plain text, for people and logs: each variable written as the
// front end would show it, `{native}` as the coin's symbol (COIN_SYMBOL).
import type { Summary, SummaryVariable } from './types.ts'

function text (variable: SummaryVariable): string {
  switch (variable.type) {
    case 'address': return variable.value.name ?? variable.value.hash
    case 'token': return variable.value.symbol ?? variable.value.name ?? variable.value.address
    case 'timestamp': return new Date(Number(variable.value) * 1000).toISOString()
    default: return variable.value
  }
}

export function renderSummary (summary: Summary, coinSymbol: string): string {
  return summary.summary_template.replace(/\{([a-z_]+)\}/g, (whole, name: string) => {
    if (name === 'native') return coinSymbol
    if (name === 'wei') return 'wei'
    const variable = summary.summary_template_variables[name]
    return variable === undefined ? whole : text(variable)
  })
}
