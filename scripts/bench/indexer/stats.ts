/** Nearest-rank percentile (q in 0..1) of sorted values; NaN when there are none. */
export function percentile (sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}
