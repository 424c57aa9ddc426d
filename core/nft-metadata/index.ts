// NFT metadata, read when an instance is first asked for (the REST instance
// route) or minted (fetcher.ts) and kept in token_instance_metadata, where every instance list reads
// it. A failed read is kept with its error and tried again after RETRY_MS:
// a URI that does not answer is not asked on every request. Concurrent asks
// for one instance share one read.
import type { Knex } from 'knex'
import { RpcUnavailableError, type RpcClient } from '../rpc/client.ts'
import type { Logger } from '../logger.ts'
import { createGuardedFetch } from './guarded-fetch.ts'
import { readDocument } from './documents.ts'
import { decodeTokenUri, tokenUriCall, type NftType } from './token-uri.ts'

export type { NftType } from './token-uri.ts'

const RETRY_MS = 10 * 60_000
const FETCH_TIMEOUT_MS = 5000
const MAX_DOCUMENT_BYTES = 1024 * 1024
/** Errors are kept for the operator's eyes, not whole. */
const MAX_ERROR_CHARS = 300

export type NftMetadataOptions = {
  /** Off: nothing is read; instances show what was read before. */
  enabled: boolean
  ipfsGateway: string
  /** Let token URIs name loopback and private addresses (a testnet whose metadata server is on its own network). */
  allowPrivateHosts: boolean
}

export type NftMetadataReader = {
  /** The instance's metadata, read now if it never was (or failed long enough ago); null when there is none to be had. */
  read (token: Buffer, tokenId: string, type: NftType): Promise<Record<string, unknown> | null>
  close (): Promise<void>
}

type Stored = { metadata: Record<string, unknown> | null, error: string | null, fetched_at: Date }

/** Without `rpc` nothing is read, as with `options.enabled` false. */
export function createNftMetadataReader ({ db, rpc, log, options, now = Date.now }: {
  db: Knex, rpc: RpcClient | undefined, log: Logger, options: NftMetadataOptions, now?: () => number
}): NftMetadataReader {
  const http = createGuardedFetch({ allowPrivate: options.allowPrivateHosts, timeoutMs: FETCH_TIMEOUT_MS, maxBytes: MAX_DOCUMENT_BYTES })
  const reading = new Map<string, Promise<Record<string, unknown> | null>>()

  async function fetchAndStore (rpc: RpcClient, token: Buffer, tokenId: string, type: NftType): Promise<Record<string, unknown> | null> {
    let uri: string | null = null
    let metadata: Record<string, unknown> | null = null
    let error: string | null = null
    try {
      const address = `0x${token.toString('hex')}`
      const call = tokenUriCall(address, tokenId, type)
      uri = decodeTokenUri(await rpc.call(call.method, call.params), tokenId, type)
      metadata = await readDocument(uri, { http, ipfsGateway: options.ipfsGateway })
    } catch (err) {
      // The node is down or restarting: nothing is known about the URI yet, so nothing is kept.
      if (err instanceof RpcUnavailableError) return null
      error = String((err as Error).message ?? err).slice(0, MAX_ERROR_CHARS)
      log.debug({ token: `0x${token.toString('hex')}`, token_id: tokenId, uri: uri?.slice(0, 200), err: error }, 'NFT metadata not read')
    }
    // PostgreSQL's jsonb holds no \u0000: such a document is kept as an error.
    if (metadata !== null && JSON.stringify(metadata).includes('\\u0000')) [metadata, error] = [null, 'the metadata holds a NUL character']
    // Kept only while a transfer still names the id: blocks taken back during
    // the read took the id with them (and its metadata, store.ts), and a row
    // written after that would outlive it.
    await db.raw(`insert into token_instance_metadata (token_address, token_id, uri, metadata, error, fetched_at)
      select ?, ?::numeric, ?, ?::jsonb, ?, to_timestamp(? / 1000.0)
      where exists (select 1 from token_transfers t where t.token_address = ? and t.token_id = ?::numeric)
      on conflict (token_address, token_id) do update set uri = excluded.uri, metadata = excluded.metadata, error = excluded.error, fetched_at = excluded.fetched_at`,
    [token, tokenId, uri?.slice(0, 2000) ?? null, metadata === null ? null : JSON.stringify(metadata), error, now(), token, tokenId])
    return metadata
  }

  return {
    async read (token, tokenId, type) {
      const stored = await db('token_instance_metadata').where({ token_address: token, token_id: tokenId }).first('metadata', 'error', 'fetched_at') as Stored | undefined
      const due = stored === undefined || (stored.metadata === null && now() - stored.fetched_at.getTime() >= RETRY_MS)
      if (!options.enabled || rpc === undefined || !due) return stored?.metadata ?? null
      const key = `${token.toString('hex')}:${tokenId}`
      let pending = reading.get(key)
      if (pending === undefined) {
        pending = fetchAndStore(rpc, token, tokenId, type).finally(() => reading.delete(key))
        reading.set(key, pending)
      }
      return await pending
    },
    close: async () => await http.close()
  }
}
