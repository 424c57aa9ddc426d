// `node --import tsx scripts/gen-chain.ts --blocks 5000 --transactions 50000 [--data-dir <dir>]`:
// the entry of the benchmark chain's generator, which lives with the
// benchmarks that read it (scripts/bench/gen-chain.ts).
import { main } from './bench/gen-chain.ts'

process.exit(await main())
