// What the benchmark chains hold: signed raw transactions from many funded
// senders, mostly ERC-20 transfers, with a few of every other shape the
// indexer decodes (plain value transfers, legacy transactions, internal calls,
// reverts with a reason, approvals). Signed here with ethers and nonces kept
// locally, so they can be sent to Geth in batches without a round trip each.
import { Interface, Transaction, Wallet, getCreateAddress, keccak256, toUtf8Bytes, type InterfaceAbi } from 'ethers'
import type { CompiledContract } from './contracts.ts'

/** Every sender starts with 1,000,000 ETH: gas for any number of transactions. */
export const SENDER_BALANCE_WEI = 10n ** 24n
const TOKEN_COUNT = 3
/** 10^12 whole tokens each: the deployer hands a share to every sender and to the Caller contract. */
const TOKEN_SUPPLY = 10n ** 30n
const RECIPIENT_COUNT = 1000
/** Transfers go to a sender instead of a fresh recipient this often, so senders' balances move both ways. */
const TO_SENDER_SHARE = 0.2
/** Legacy (type 0) transactions among all: the indexer decodes gasPrice instead of EIP-1559 fees. */
const LEGACY_SHARE = 0.1
const GWEI = 10n ** 9n
// Clique London starts at a 1 gwei base fee and it only falls with small blocks.
const MAX_FEE_PER_GAS = 2n * GWEI
const MAX_PRIORITY_FEE_PER_GAS = GWEI
const LEGACY_GAS_PRICE = 2n * GWEI
const GAS = { deploy: 2_000_000n, transfer: 80_000n, value: 21_000n, forward: 150_000n, approve: 80_000n, fail: 80_000n }
/** Senders per round (block): a few, so that blocks are not one sender's. */
const ROUND_SENDERS = 3
const SEED = 0x7467626e // "tgbn": the same chain content on every generation

/** Weights per thousand of the generated mix. */
const MIX = [
  ['token_transfer', 880],
  ['value_transfer', 50],
  ['forward', 30],
  ['approve', 20],
  ['failing_transfer', 10],
  ['failing_call', 10]
] as const

export type TransactionKind = typeof MIX[number][0] | 'deploy' | 'funding'

export type Traffic = {
  /** Deploys the tokens and the Caller, then gives every sender and the Caller tokens; all from sender 0. */
  setup (): string[]
  /** The next `count` transactions of the mix, from senders taken in turn. */
  next (count: number): string[]
  /**
   * A round meant to be sealed as one block: `count` transactions from a few
   * senders, each sender's first one (its gate) last. Until its gate arrives a
   * sender's later nonces wait in Geth's queue, so the whole round turns
   * pending together instead of clique period 0 sealing its first few alone.
   */
  nextRound (count: number): string[]
  readonly tokens: string[]
  readonly counts: Readonly<Record<TransactionKind, number>>
}

export type TrafficOptions = {
  chainId: number
  senders: Wallet[]
  token: CompiledContract
  caller: CompiledContract
}

/** Well-known keys (testnets only): the same senders on every chain, so nothing needs storing. */
export function benchSenders (count: number): Wallet[] {
  return Array.from({ length: count }, (_, i) => new Wallet(keccak256(toUtf8Bytes(`testnet-gateway bench sender ${i}`))))
}

/** GENESIS_ALLOC contents funding every sender. */
export function senderAlloc (senders: Wallet[]): Record<string, { balance: string }> {
  return Object.fromEntries(senders.map((w) => [w.address, { balance: '0x' + SENDER_BALANCE_WEI.toString(16) }]))
}

export function createTraffic ({ chainId, senders, token, caller }: TrafficOptions): Traffic {
  const random = mulberry32(SEED)
  const nonces = senders.map(() => 0)
  const counts = Object.fromEntries([...MIX.map(([kind]) => kind), 'deploy', 'funding'].map((k) => [k, 0])) as Record<TransactionKind, number>
  const tokenAbi = new Interface(token.abi as InterfaceAbi)
  const callerAbi = new Interface(caller.abi as InterfaceAbi)
  const deployer = senders[0]!
  const tokens = Array.from({ length: TOKEN_COUNT }, (_, i) => getCreateAddress({ from: deployer.address, nonce: i }))
  const callerAddress = getCreateAddress({ from: deployer.address, nonce: TOKEN_COUNT })
  const recipients = Array.from({ length: RECIPIENT_COUNT }, (_, i) => '0x' + keccak256(toUtf8Bytes(`testnet-gateway bench recipient ${i}`)).slice(-40))
  let turn = 0

  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const amount = (): bigint => BigInt(1 + Math.floor(random() * 1e6)) * 10n ** 12n

  function sign (from: number, kind: TransactionKind, fields: { to: string | null, data?: string, value?: bigint, gasLimit: bigint }): string {
    const wallet = senders[from]!
    const legacy = random() < LEGACY_SHARE
    const tx = Transaction.from({
      ...fields,
      chainId,
      nonce: nonces[from]!++,
      ...(legacy
        ? { type: 0, gasPrice: LEGACY_GAS_PRICE }
        : { type: 2, maxFeePerGas: MAX_FEE_PER_GAS, maxPriorityFeePerGas: MAX_PRIORITY_FEE_PER_GAS })
    })
    tx.signature = wallet.signingKey.sign(tx.unsignedHash)
    counts[kind]++
    return tx.serialized
  }

  function recipient (): string {
    return random() < TO_SENDER_SHARE ? pick(senders).address : pick(recipients)
  }

  function oneOf (from: number): string {
    let roll = random() * 1000
    const kind = MIX.find(([, weight]) => (roll -= weight) < 0)?.[0] ?? 'token_transfer'
    switch (kind) {
      case 'token_transfer':
        return sign(from, kind, { to: pick(tokens), data: tokenAbi.encodeFunctionData('transfer', [recipient(), amount()]), gasLimit: GAS.transfer })
      case 'value_transfer':
        return sign(from, kind, { to: recipient(), value: amount(), gasLimit: GAS.value })
      case 'forward':
        // The Caller moves its own tokens: a call with an internal call and two logs.
        return sign(from, kind, { to: callerAddress, data: callerAbi.encodeFunctionData('forward', [pick(tokens), recipient(), amount()]), gasLimit: GAS.forward })
      case 'approve':
        return sign(from, kind, { to: pick(tokens), data: tokenAbi.encodeFunctionData('approve', [pick(senders).address, amount()]), gasLimit: GAS.approve })
      case 'failing_transfer':
        // More than anyone holds: reverts with Error("balance").
        return sign(from, kind, { to: pick(tokens), data: tokenAbi.encodeFunctionData('transfer', [recipient(), TOKEN_SUPPLY + 1n]), gasLimit: GAS.fail })
      case 'failing_call':
        return sign(from, kind, { to: callerAddress, data: callerAbi.encodeFunctionData('fail'), gasLimit: GAS.fail })
    }
  }

  return {
    tokens,
    counts,
    setup () {
      if (nonces[0] !== 0) throw new Error('setup() must come first: the contract addresses assume sender 0 starts at nonce 0')
      const deployToken = (i: number): string => token.bytecode + tokenAbi.encodeDeploy([`Bench Token ${i}`, `BT${i}`, TOKEN_SUPPLY]).slice(2)
      const raws = tokens.map((_, i) => sign(0, 'deploy', { to: null, data: deployToken(i), gasLimit: GAS.deploy }))
      raws.push(sign(0, 'deploy', { to: null, data: caller.bytecode, gasLimit: GAS.deploy }))
      const holders = [...senders.slice(1).map((w) => w.address), callerAddress]
      const share = TOKEN_SUPPLY / BigInt(holders.length + 1)
      for (const address of tokens) {
        for (const holder of holders) {
          raws.push(sign(0, 'funding', { to: address, data: tokenAbi.encodeFunctionData('transfer', [holder, share]), gasLimit: GAS.transfer }))
        }
      }
      return raws
    },
    next (count) {
      return Array.from({ length: count }, () => oneOf(turn++ % senders.length))
    },
    nextRound (count) {
      const froms = Array.from({ length: Math.min(ROUND_SENDERS, count) }, () => turn++ % senders.length)
      const perSender = froms.map((from, i) => Array.from({ length: Math.floor(count / froms.length) + (i < count % froms.length ? 1 : 0) }, () => oneOf(from)))
      return [...perSender.flatMap((raws) => raws.slice(1)), ...perSender.map((raws) => raws[0]!)]
    }
  }
}

/** A small seeded PRNG: the mix is the same on every generation. */
function mulberry32 (seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
