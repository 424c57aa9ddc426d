// Clique blocks report `miner` as the zero address; the signer is recovered
// from the 65-byte seal at the end of extraData over the header's seal hash
// (the RLP of the header with that seal cut off).
import { encodeRlp, keccak256, recoverAddress, toBeArray, type RlpStructuredDataish } from 'ethers'
import type { Hex, RpcBlock } from './types.ts'

const SEAL_BYTES = 65

/** RLP wants minimal big-endian bytes: 0 is the empty string. */
function quantity (hex: Hex): Uint8Array {
  return BigInt(hex) === 0n ? new Uint8Array() : toBeArray(BigInt(hex))
}

export function cliqueSealHash (block: RpcBlock): Hex {
  const extra = block.extraData.slice(0, block.extraData.length - SEAL_BYTES * 2)
  const fields: RlpStructuredDataish[] = [
    block.parentHash, block.sha3Uncles, block.miner, block.stateRoot, block.transactionsRoot, block.receiptsRoot,
    block.logsBloom, quantity(block.difficulty), quantity(block.number), quantity(block.gasLimit), quantity(block.gasUsed),
    quantity(block.timestamp), extra, block.mixHash, block.nonce
  ]
  if (block.baseFeePerGas !== undefined) fields.push(quantity(block.baseFeePerGas))
  return keccak256(encodeRlp(fields)) as Hex
}

/** The lower-case signer address, or null for the genesis block, which has no seal. */
export function recoverCliqueSigner (block: RpcBlock): Hex | null {
  if (BigInt(block.number) === 0n) return null
  const seal = block.extraData.slice(-SEAL_BYTES * 2)
  const r = '0x' + seal.slice(0, 64)
  const s = '0x' + seal.slice(64, 128)
  const v = 27 + parseInt(seal.slice(128, 130), 16)
  return recoverAddress(cliqueSealHash(block), { r, s, v }).toLowerCase() as Hex
}
