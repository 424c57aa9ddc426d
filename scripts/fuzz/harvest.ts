// Real values of the fuzzed chain, read through the gateway's own REST API
// before fuzzing: hashes, addresses, tokens and the page cursors of its lists.
import type { HttpClient } from './http.ts'
import type { Known } from './hostile.ts'

const CURSOR_LISTS = ['/api/v2/transactions', '/api/v2/blocks', '/api/v2/tokens', '/api/v2/addresses', '/api/v2/token-transfers', '/api/v2/internal-transactions']

type Page = { items?: Array<Record<string, any>>, next_page_params?: Record<string, unknown> | null }

export async function harvestKnown (client: HttpClient, tokens: string[]): Promise<Known> {
  const read = async (path: string): Promise<Page> => {
    const response = await client.send({ method: 'GET', path })
    if (response.status !== 200) throw new Error(`GET ${path}: HTTP ${response.status} ${response.text.slice(0, 200)}`)
    return JSON.parse(response.text) as Page
  }
  const [transactions, blocks] = [await read('/api/v2/transactions'), await read('/api/v2/blocks')]
  const cursors: Array<Record<string, unknown>> = []
  for (const path of CURSOR_LISTS) {
    const next = (await read(path)).next_page_params
    if (next !== null && next !== undefined) cursors.push(next)
  }
  const known: Known = {
    blockNumbers: (blocks.items ?? []).map((b) => Number(b.height)),
    blockHashes: (blocks.items ?? []).map((b) => String(b.hash)),
    transactionHashes: (transactions.items ?? []).map((t) => String(t.hash)),
    addresses: [...new Set((transactions.items ?? []).flatMap((t) => [t.from?.hash, t.to?.hash]).filter((a): a is string => typeof a === 'string'))],
    tokens,
    cursors
  }
  for (const [name, values] of Object.entries(known)) {
    if ((values as unknown[]).length === 0 && name !== 'cursors') throw new Error(`the chain under test has no ${name}: generate one with transactions`)
  }
  return known
}
