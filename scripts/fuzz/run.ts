// Runs one interface's generated requests as a fast-check property: every
// answer must pass the interface's check. Several properties (streams, each
// with its own seed) run side by side for concurrency; a failing one is
// shrunk by fast-check to the smallest request that still fails, and its
// report (seed, path, counterexample) is kept for the summary.
import fc from 'fast-check'
import type { FuzzRequest, FuzzResponse, HttpClient } from './http.ts'

/**
 * An interface's generated requests and the verdict on each answer. HTTP
 * targets go through the suite's client; others (WebSocket sessions) bring
 * their own `exchange`, say how many requests one input is (`count`: a
 * session's frames) and how its answer is classed in the table.
 */
export type FuzzTarget<Request = FuzzRequest, Answer = FuzzResponse> = {
  name: string
  requests: fc.Arbitrary<Request>
  check (answer: Answer): string | undefined
  exchange?: (request: Request) => Promise<Answer>
  count?: (request: Request) => number
  classify?: (answer: Answer) => string
}

export type TargetResult = {
  name: string
  requests: number
  /** Answers by status class: 2xx, 3xx, 4xx, 5xx (`ws`: a WebSocket session upgraded). */
  byClass: Record<string, number>
  /** Requests that got no answer (connection reset, timeout). */
  transportErrors: number
  /** Bodies over the limit whose 413 was lost to a connection reset (http.ts): counted, not failed. */
  resets: number
  /** fast-check's report of each failing stream, shrunk counterexample included. */
  failures: string[]
}

export type RunOptions = { runs: number, deadline: number, seed: number, streams: number }

export async function runTarget<Request, Answer> (target: FuzzTarget<Request, Answer>, client: HttpClient, { runs, deadline, seed, streams }: RunOptions): Promise<TargetResult> {
  const result: TargetResult = { name: target.name, requests: 0, byClass: {}, transportErrors: 0, resets: 0, failures: [] }
  const exchange = target.exchange ?? (async (request: Request) => await client.send(request as FuzzRequest) as Answer)
  const classify = target.classify ?? ((answer: Answer) => `${Math.floor((answer as FuzzResponse).status / 100)}xx`)
  const property = fc.asyncProperty(target.requests, async (request) => {
    let response: Answer
    result.requests += target.count?.(request) ?? 1
    try {
      response = await exchange(request)
    } catch (err) {
      result.transportErrors++
      throw new Error(`no answer: ${(err as Error).message}`)
    }
    if ((response as FuzzResponse).reset === true) {
      result.resets++
      return
    }
    const statusClass = classify(response)
    result.byClass[statusClass] = (result.byClass[statusClass] ?? 0) + 1
    const problem = target.check(response)
    if (problem !== undefined) throw new Error(problem)
  })
  const perStream = Math.max(1, Math.ceil(runs / streams))
  await Promise.all(Array.from({ length: streams }, async (_, i) => {
    const timeLeftMs = deadline - Date.now()
    if (timeLeftMs <= 0) return
    try {
      // Interrupted by the time limit is a bounded run, not a failure.
      await fc.assert(property, { numRuns: perStream, seed: seed + i, interruptAfterTimeLimit: timeLeftMs, markInterruptAsFailure: false, includeErrorInReport: true })
    } catch (err) {
      result.failures.push((err as Error).message)
    }
  }))
  return result
}
