// The coin balances of many addresses at one block in a single eth_call: a
// tiny program, placed at an unused address with eth_call's state override,
// answers BALANCE of every 32-byte word of its calldata. Geth then opens the
// block's state once for all of them; an eth_getBalance each opens it per
// address, and this read was the backfill's largest cost on the node.
import type { RpcCall } from '../rpc/client.ts'
import type { Hex } from './types.ts'

/**
 *   0 PUSH1 0                 i = 0
 *   2 JUMPDEST                loop:
 *   3 CALLDATASIZE DUP2 LT    i < calldatasize?
 *   6 ISZERO PUSH1 21 JUMPI   no: to done
 *  10 DUP1 CALLDATALOAD       the address at i
 *  12 BALANCE DUP2 MSTORE     memory[i] = its balance
 *  15 PUSH1 32 ADD            i += 32
 *  18 PUSH1 2 JUMP            to loop
 *  21 JUMPDEST                done:
 *  22 CALLDATASIZE PUSH1 0 RETURN   memory[0, calldatasize)
 */
const SCANNER_CODE = '0x60005b3681101560155780353181526020016002565b366000f3'
/** No key is known for it and nothing lives there: the override only lasts for the call. */
const SCANNER_ADDRESS = '0x00000000000000000000000000000000000ba1a4'
const WORD_HEX = 64

/**
 * Addresses one call reads. Each costs the call about 3,000 gas (a cold
 * BALANCE and its calldata), and Geth caps an eth_call at 50,000,000 by
 * default (--rpc.gascap): a batch of busy blocks can show more addresses than
 * one call holds, and a call out of gas would fail the batch on every retry.
 */
export const SCAN_MAX_ADDRESSES = 4096

type BlockRef = { blockHash: Hex, requireCanonical: boolean }

/** A read of many balances at one block: its calls, and how to turn their answers (in order) into balances. */
export type BalanceScan = { calls: RpcCall[], read: (answers: unknown[]) => string[] }

/** The eth_calls reading every address's balance at `at`, `perCall` a call. */
export function balanceScan (addresses: Hex[], at: BlockRef, perCall = SCAN_MAX_ADDRESSES): BalanceScan {
  const chunks: Hex[][] = []
  for (let i = 0; i < addresses.length; i += perCall) chunks.push(addresses.slice(i, i + perCall))
  return {
    calls: chunks.map((chunk) => scanCall(chunk, at)),
    read: (answers) => chunks.flatMap((chunk, i) => decodeBalances(answers[i], chunk.length))
  }
}

/**
 * The answers of `scans`' calls, sent in order as one list, as each scan's
 * balances; the answers after them are left for the caller.
 */
export function readScans (scans: BalanceScan[], answers: unknown[]): string[][] {
  let next = 0
  return scans.map((scan) => {
    const own = answers.slice(next, next + scan.calls.length)
    next += scan.calls.length
    return scan.read(own)
  })
}

function scanCall (addresses: Hex[], at: BlockRef): RpcCall {
  const data = `0x${addresses.map((a) => a.slice(2).padStart(WORD_HEX, '0')).join('')}`
  return { method: 'eth_call', params: [{ to: SCANNER_ADDRESS, data }, at, { [SCANNER_ADDRESS]: { code: SCANNER_CODE } }] }
}

/** One call's answer as decimal strings, one per address asked, in order. */
function decodeBalances (result: unknown, count: number): string[] {
  if (typeof result !== 'string' || result.length !== 2 + count * WORD_HEX) {
    throw new Error(`the balance scan answered ${String(result).slice(0, 80)} for ${count} addresses`)
  }
  return Array.from({ length: count }, (_, i) => BigInt(`0x${result.slice(2 + i * WORD_HEX, 2 + (i + 1) * WORD_HEX)}`).toString())
}
