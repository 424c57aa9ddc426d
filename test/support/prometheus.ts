// A strict reader of the Prometheus text format (0.0.4), for tests: every line
// is a comment (# HELP / # TYPE name type), blank, or `name{labels} value`;
// it throws on anything else, so a malformed exposition fails the test.
export type Sample = { name: string, labels: Record<string, string>, value: number }
export type Exposition = { types: Map<string, string>, samples: Sample[] }

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*'
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})?\\s+(\\S+)(?:\\s+-?\\d+)?$`)
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped'])

export function parsePrometheusText (text: string): Exposition {
  const types = new Map<string, string>()
  const samples: Sample[] = []
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line)
      if (type !== null) {
        if (!TYPES.has(type[2]!)) throw new Error(`line ${i + 1}: unknown type ${type[2]}`)
        types.set(type[1]!, type[2]!)
      } else if (!/^# HELP \S+ /.test(line)) throw new Error(`line ${i + 1}: not a HELP or TYPE comment: ${line}`)
      continue
    }
    const match = SAMPLE.exec(line)
    if (match === null) throw new Error(`line ${i + 1}: not a sample: ${line}`)
    // As Prometheus reads values (Go's ParseFloat): NaN and Inf in any case; prom-client writes `Nan`.
    const value = /^nan$/i.test(match[3]!) ? NaN : /^[+-]?inf$/i.test(match[3]!) ? (match[3]!.startsWith('-') ? -Infinity : Infinity) : Number(match[3])
    if (Number.isNaN(value) && !/^nan$/i.test(match[3]!)) throw new Error(`line ${i + 1}: bad value ${match[3]}`)
    samples.push({ name: match[1]!, labels: parseLabels(match[2] ?? '', i + 1), value })
  }
  return { types, samples }
}

function parseLabels (text: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {}
  LABEL.lastIndex = 0
  while (LABEL.lastIndex < text.length) {
    const start = LABEL.lastIndex
    const match = LABEL.exec(text)
    if (match === null || LABEL.lastIndex === start) throw new Error(`line ${line}: bad labels {${text}}`)
    labels[match[1]!] = match[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\')
  }
  return labels
}

/** The value of the one sample with this name and these labels (others ignored); undefined when absent. */
export function sampleValue (exposition: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = exposition.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`)
  return found[0]?.value
}
