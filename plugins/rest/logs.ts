// Event logs: a transaction's, in log order, and an address's, newest first.
import { PAGE_SIZE } from '../../core/queries/sql/page-size.ts'
import { type LogRecord } from '../../core/queries/transactions/logs.ts'
import { log, blockIndexList } from './list-schemas.ts'
import { blockIndexCursor, integerParam } from './pages.ts'
import { logAddresses, presentLog } from '../present/present-log.ts'
import { addressHashParams, message, query, transactionHashParams, validationError, type RestApp } from './schemas.ts'
import { hashBytes } from '../present/present.ts'
import { NotFoundError } from '../../core/errors.ts'
import { decodeLogs } from '../present/decodings.ts'
import type { Decoder } from '../../core/decode/index.ts'
import type { AddressNameReader } from '../../core/address-names/index.ts'

const listResponse = blockIndexList.response(log)
const nextParams = (last: LogRecord) => ({ block_number: last.block_number, index: last.log_index, items_count: PAGE_SIZE })

export async function logRoutes (app: RestApp, { decoder, names }: { decoder: Decoder, names: AddressNameReader }): Promise<void> {
  const queries = app.queries
  /** Each log decoded and with the page's names. */
  const presenter = async (rows: LogRecord[]) => {
    const [decoded, named] = await Promise.all([decodeLogs(decoder, rows), names.read(rows.flatMap(logAddresses))])
    return (l: LogRecord) => presentLog(l, decoded(l), named)
  }

  app.get('/transactions/:transaction_hash_param/logs', {
    schema: {
      tags: ['transactions'],
      summary: 'A transaction\'s logs in log order',
      params: transactionHashParams,
      querystring: query(blockIndexList.params),
      response: { 200: listResponse, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const hash = hashBytes(request.params.transaction_hash_param)
    if (!await queries.transactionExists(hash)) throw new NotFoundError()
    const rows = await queries.listTransactionLogs({ hash, afterIndex: integerParam(request.query.index, -1) })
    return blockIndexList.keysetPage(rows, await presenter(rows), nextParams, request.query)
  })

  app.get('/addresses/:address_hash_param/logs', {
    schema: {
      tags: ['addresses'],
      summary: 'Logs the address emitted, newest first; `topic` keeps those carrying it in any position',
      params: addressHashParams,
      querystring: query({ topic: { type: 'string', pattern: '^0x([A-Fa-f0-9]*)$' }, ...blockIndexList.params }),
      response: { 200: listResponse, 422: validationError }
    }
  }, async (request) => {
    const q = request.query
    const cursor = blockIndexCursor(q)
    const topic = q.topic === undefined ? undefined : hashBytes(q.topic)
    const rows = await queries.listAddressLogs({ address: hashBytes(request.params.address_hash_param), topic, cursor })
    return blockIndexList.keysetPage(rows, await presenter(rows), nextParams, q)
  })
}
