// `npm run test:unit` runs the files test/unit.txt lists with TG_TEST_UNIT=1:
// the pure layer, which needs neither Geth nor PostgreSQL. A listed file that
// reaches for either fails at once, naming the list, instead of starting it.
export function refuseInUnitRun (what: string): void {
  if (process.env.TG_TEST_UNIT === '1') throw new Error(`npm run test:unit: this file needs ${what}; take it off test/unit.txt`)
}
