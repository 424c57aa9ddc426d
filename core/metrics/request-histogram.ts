// A latency histogram cheap enough for every JSON-RPC call. prom-client's own
// Histogram validates and hashes its labels object on every observe (about
// 1 µs on the bench machine, 1 to 2 % of a proxied eth_blockNumber's CPU);
// here each label set is looked up once by a string key and an observation is
// a bucket search and three additions. The registry reads it through get(),
// in the shape prom-client's Histogram hands it (the same text out).
import type { Registry } from 'prom-client'

type Series = { labels: Record<string, string>, buckets: Float64Array, sum: number, count: number }

export type RequestHistogramOptions = { name: string, help: string, buckets: number[], registry: Registry }

export class RequestHistogram {
  readonly name: string
  readonly help: string
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  private readonly bounds: number[]
  private readonly series = new Map<string, Series>()

  constructor ({ name, help, buckets, registry }: RequestHistogramOptions) {
    this.name = name
    this.help = help
    this.bounds = [...buckets].sort((a, b) => a - b)
    registry.registerMetric(this as never)
  }

  /** `key` names the label set (a route and status, a method); `labels` is read only the first time a key is seen. */
  observe (key: string, labels: () => Record<string, string>, seconds: number): void {
    let series = this.series.get(key)
    if (series === undefined) {
      series = { labels: labels(), buckets: new Float64Array(this.bounds.length), sum: 0, count: 0 }
      this.series.set(key, series)
    }
    const bounds = this.bounds
    let i = 0
    while (i < bounds.length && seconds > bounds[i]!) i++
    // Past the last bound it counts in +Inf only (count).
    if (i < bounds.length) series.buckets[i]! += 1
    series.sum += seconds
    series.count += 1
  }

  async get (): Promise<{ name: string, help: string, type: string, aggregator: string, values: Array<{ labels: Record<string, string | number>, value: number, metricName: string }> }> {
    const values = []
    for (const { labels, buckets, sum, count } of this.series.values()) {
      let cumulative = 0
      for (const [i, bound] of this.bounds.entries()) {
        cumulative += buckets[i]!
        values.push({ labels: { ...labels, le: bound }, value: cumulative, metricName: `${this.name}_bucket` })
      }
      values.push({ labels: { ...labels, le: '+Inf' }, value: count, metricName: `${this.name}_bucket` })
      values.push({ labels, value: sum, metricName: `${this.name}_sum` })
      values.push({ labels, value: count, metricName: `${this.name}_count` })
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }
}
