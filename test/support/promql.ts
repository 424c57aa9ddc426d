// The metric names a PromQL expression reads, for tests that hold a dashboard
// to the registry: every identifier outside label matchers, ranges, strings and
// by/without/on/ignoring lists that is not a function, an aggregation or a keyword.
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'offset', 'bool', 'inf', 'nan'])

export function promqlMetricNames (expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
  const names = new Set<string>()
  for (const match of bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)) {
    const [, name, call] = match
    // A name right after a digit is a number's exponent or a duration's unit.
    const before = bare[match.index - 1]
    if (call !== undefined || KEYWORDS.has(name!.toLowerCase()) || (before !== undefined && /[0-9.]/.test(before))) continue
    names.add(name!)
  }
  return [...names]
}
