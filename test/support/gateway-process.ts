// The gateway as a child process lives in scripts/lib, where the proof suites
// (npm run fuzz, npm run faults) use it too.
export * from '../../scripts/lib/gateway-process.ts'
