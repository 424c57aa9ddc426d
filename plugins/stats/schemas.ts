// JSON schemas of the Stats API's shapes (blockscout-rs stats, snake_case, every value a string).
const counter = {
  type: 'object',
  required: ['id', 'value', 'title', 'units', 'description'],
  properties: { id: { type: 'string' }, value: { type: 'string' }, title: { type: 'string' }, units: { type: ['string', 'null'] }, description: { type: 'string' } }
} as const
const nullableCounter = { ...counter, type: ['object', 'null'] } as const

export const lineChartInfo = {
  type: 'object',
  required: ['id', 'title', 'description', 'units', 'resolutions'],
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    units: { type: ['string', 'null'] },
    resolutions: { type: 'array', items: { type: 'string' } }
  }
} as const

const point = {
  type: 'object',
  required: ['date', 'date_to', 'value'],
  properties: { date: { type: 'string', format: 'date' }, date_to: { type: 'string', format: 'date' }, value: { type: 'string' }, is_approximate: { type: 'boolean' } }
} as const

export const lineChart = { type: 'object', required: ['chart', 'info'], properties: { chart: { type: 'array', items: point }, info: lineChartInfo } } as const
const nullableLineChart = { ...lineChart, type: ['object', 'null'] } as const

/** The service's error body: a gRPC status code and its message. */
export const statsError = { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' } } } as const

const counterFields = (names: string[]) => Object.fromEntries(names.map((n) => [n, nullableCounter]))

export const countersResponse = { type: 'object', required: ['counters'], properties: { counters: { type: 'array', items: counter } } } as const

export const sectionsResponse = {
  type: 'object',
  required: ['sections'],
  properties: {
    sections: {
      type: 'array',
      items: { type: 'object', required: ['id', 'title', 'charts'], properties: { id: { type: 'string' }, title: { type: 'string' }, charts: { type: 'array', items: lineChartInfo } } }
    }
  }
} as const

export const mainPageResponse = {
  type: 'object',
  properties: {
    ...counterFields(['average_block_time', 'total_addresses', 'total_blocks', 'total_transactions', 'yesterday_transactions',
      'total_operational_transactions', 'yesterday_operational_transactions', 'op_stack_total_operational_transactions',
      'op_stack_yesterday_operational_transactions']),
    daily_new_transactions: nullableLineChart,
    daily_new_operational_transactions: nullableLineChart,
    op_stack_daily_new_operational_transactions: nullableLineChart
  }
} as const

export const transactionsPageResponse = {
  type: 'object',
  properties: counterFields(['pending_transactions_30m', 'transactions_fee_24h', 'average_transactions_fee_24h', 'transactions_24h',
    'operational_transactions_24h', 'op_stack_operational_transactions_24h', 'total_zetachain_cross_chain_txns',
    'new_zetachain_cross_chain_txns_24h', 'pending_zetachain_cross_chain_txns'])
} as const

export const contractsPageResponse = {
  type: 'object',
  properties: counterFields(['total_contracts', 'new_contracts_24h', 'total_verified_contracts', 'new_verified_contracts_24h'])
} as const

const STATUSES = ['PENDING', 'WAITING_FOR_STARTING_CONDITION', 'QUEUED_FOR_INITIAL_UPDATE', 'RUNNING_INITIAL_UPDATE', 'COMPLETED_INITIAL_UPDATE']
export const updateStatusResponse = {
  type: 'object',
  properties: Object.fromEntries(['all_status', 'independent_status', 'blocks_dependent_status', 'internal_transactions_dependent_status',
    'user_ops_dependent_status', 'zetachain_cctx_dependent_status'].map((n) => [n, { type: 'string', enum: STATUSES }]))
} as const
