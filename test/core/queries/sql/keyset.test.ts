// The read model's keyset pages, without a database: bounds, scan order and
// trimming (GraphQL's connections), and REST's pages over mixed orders.
import t from 'tap'
import { groupByParent, keysetClause, keysetPage, mergedSidesSql, toPageRows, type KeysetPage } from '../../../../core/queries/sql/keyset.ts'

const page = (p: Partial<KeysetPage>): KeysetPage => ({ limit: 2, fromEnd: false, order: 'desc', ...p })

t.test('keysetClause() bounds a page after and before keys in the connection order', async (t) => {
  t.same(keysetClause(['b', 'i'], page({})), { where: '', bindings: [], orderBy: 'b desc, i desc', limit: 3 })
  t.same(keysetClause(['b', 'i'], page({ after: [9, 1], before: [3, 0] })),
    { where: ' and (b, i) < (?, ?) and (b, i) > (?, ?)', bindings: [9, 1, 3, 0], orderBy: 'b desc, i desc', limit: 3 })
  t.same(keysetClause(['n'], page({ order: 'asc', after: [4] })), { where: ' and (n) > (?)', bindings: [4], orderBy: 'n asc', limit: 3 })
  t.same(keysetClause(['n'], page({ order: 'asc', fromEnd: true, before: [8] })),
    { where: ' and (n) < (?)', bindings: [8], orderBy: 'n desc', limit: 3 }, '`last` reads backwards from `before`')
})

t.test('toPageRows() drops the probe row and puts a backwards read in order', async (t) => {
  t.same(toPageRows([5, 4, 3], page({})), { rows: [5, 4], hasMore: true })
  t.same(toPageRows([5, 4], page({})), { rows: [5, 4], hasMore: false })
  t.same(toPageRows([1, 2, 3], page({ fromEnd: true })), { rows: [2, 1], hasMore: true })
})

t.test('groupByParent() answers every parent, an empty page for one without rows', async (t) => {
  const rows = [{ parent_key: '0xa', n: 1 }, { parent_key: '0xa', n: 2 }, { parent_key: '0xa', n: 3 }, { parent_key: '0xc', n: 9 }]
  t.same(groupByParent(['0xa', '0xb', '0xc'], rows, page({})), [
    { rows: [rows[0], rows[1]], hasMore: true }, { rows: [], hasMore: false }, { rows: [rows[3]], hasMore: false }
  ])
})

t.test('keysetPage() bounds a key of one direction by one row comparison, as keysetClause does', async (t) => {
  const keys = [{ column: 'v', descending: false }, { column: 'h', descending: false }]
  const base = { columns: 'v, h', from: 'x', where: 'v > 0', bindings: [], keys, limit: 3 }
  t.same(keysetPage({ ...base, cursor: undefined }), { sql: 'select v, h from x where v > 0 order by v asc, h asc limit 3', bindings: [] })
  t.same(keysetPage({ ...base, cursor: [5, 'b'] }),
    { sql: 'select v, h from x where v > 0 and (v, h) > (?, ?) order by v asc, h asc limit 3', bindings: [5, 'b'] })
})

t.test('keysetPage() reads a mixed order as one range per column, deepest first', async (t) => {
  const keys = [{ column: 'v', descending: true }, { column: 'h', descending: false }]
  const { sql, bindings } = keysetPage({ columns: 'v, h', from: 'x', where: 'v > ?', bindings: [0], keys, cursor: [5, 'b'], limit: 3 })
  t.match(sql, /where v > \? and v = \? and h > \? order by v desc, h asc limit 3\) union all \(select v, h, 1 as keyset_part from x\s+where v > \? and v < \?/)
  t.match(sql, /order by keyset_part, v desc, h asc limit 3$/)
  t.same(bindings, [0, 5, 'b', 0, 5])
})

t.test('mergedSidesSql() reads each side from its own index and keeps a row two sides hold once', async (t) => {
  t.equal(mergedSidesSql({ table: 't', columns: '*', wheres: ['a = ?', 'b = ?'], keys: ['n', 'i'], orderBy: 'n desc, i desc', sideLimit: '?', tail: 'offset ? limit ?' }),
    'select distinct on (n, i) * from ((select * from t where a = ? order by n desc, i desc limit ?) union all ' +
    '(select * from t where b = ? order by n desc, i desc limit ?)) s order by n desc, i desc offset ? limit ?')
})
