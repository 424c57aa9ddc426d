// The clique genesis for chain 793788: London rules and nothing later, because
// clique rejects Shanghai and Cancun and a terminal total difficulty stops sealing.
import { readFile } from 'node:fs/promises'
import { getAddress, isAddress } from 'ethers'
import { GenesisAllocInvalidError } from '../core/errors.ts'

export const GENESIS_GAS_LIMIT = 30_000_000
/** 1,000,000,000 ETH for the faucet. */
export const FAUCET_BALANCE_WEI = 10n ** 27n
const CLIQUE_EPOCH = 30000

export type GenesisAccount = {
  balance: string
  code?: string
  nonce?: string
  storage?: Record<string, string>
}
export type GenesisAlloc = Record<string, GenesisAccount>

export type GenesisOptions = {
  chainId: number
  signer: string
  cliquePeriod: number
  alloc: GenesisAlloc
}

/** extraData = 32 bytes vanity + the signer addresses (sorted) + 65 bytes seal. */
export function buildCliqueExtraData (signers: string[]): string {
  const sorted = signers.map((a) => a.toLowerCase().slice(2)).sort()
  return '0x' + '00'.repeat(32) + sorted.join('') + '00'.repeat(65)
}

export function buildGenesis ({ chainId, signer, cliquePeriod, alloc }: GenesisOptions) {
  return {
    config: {
      chainId,
      homesteadBlock: 0,
      eip150Block: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      constantinopleBlock: 0,
      petersburgBlock: 0,
      istanbulBlock: 0,
      berlinBlock: 0,
      londonBlock: 0,
      clique: { period: cliquePeriod, epoch: CLIQUE_EPOCH }
    },
    nonce: '0x0',
    timestamp: '0x0',
    extraData: buildCliqueExtraData([signer]),
    gasLimit: '0x' + GENESIS_GAS_LIMIT.toString(16),
    difficulty: '0x1',
    mixHash: '0x' + '00'.repeat(32),
    coinbase: '0x' + '00'.repeat(20),
    alloc
  }
}

/** Reads a GENESIS_ALLOC file and normalises its keys to checksummed addresses. */
export async function readGenesisAlloc (file: string): Promise<GenesisAlloc> {
  let parsed: unknown
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'))
  } catch (err) {
    throw new GenesisAllocInvalidError(file, (err as Error).message)
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new GenesisAllocInvalidError(file, 'expected an object of address -> { balance }')
  }
  const alloc: GenesisAlloc = {}
  for (const [key, account] of Object.entries(parsed)) {
    const address = key.startsWith('0x') ? key : '0x' + key
    // Any letter case, as Geth accepts: a wrong checksum is not a wrong address here.
    if (!isAddress(address.toLowerCase())) throw new GenesisAllocInvalidError(file, `${key} is not an address`)
    const balance = (account as GenesisAccount | null)?.balance
    if (typeof balance !== 'string' || !/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(balance)) {
      throw new GenesisAllocInvalidError(file, `${key}.balance must be a decimal or 0x-hex string`)
    }
    alloc[getAddress(address.toLowerCase())] = account as GenesisAccount
  }
  return alloc
}
