// The URI an NFT names for an id's metadata: ERC-721 tokenURI(id), ERC-1155
// uri(id) with its {id} placeholder filled in (EIP-1155: 64 lowercase hex
// digits, no 0x).
import { AbiCoder } from 'ethers'

const abi = AbiCoder.defaultAbiCoder()
const TOKEN_URI = '0xc87b56dd'
const URI = '0x0e89341c'
/** A URI longer than this is no link: a data: URI of an image inlined twice over, say. */
export const MAX_URI_CHARS = 200_000

export type NftType = 'ERC-721' | 'ERC-1155'

export function tokenUriCall (token: string, tokenId: string, type: NftType): { method: string, params: unknown[] } {
  const selector = type === 'ERC-721' ? TOKEN_URI : URI
  return { method: 'eth_call', params: [{ to: token, data: selector + abi.encode(['uint256'], [tokenId]).slice(2) }, 'latest'] }
}

/** The call's answer as a URI; throws for anything that is not an ABI string. */
export function decodeTokenUri (result: unknown, tokenId: string, type: NftType): string {
  if (typeof result !== 'string' || result === '0x') throw new Error('the token answered no URI')
  const uri = (abi.decode(['string'], result)[0] as string).trim()
  if (uri === '') throw new Error('the token answered an empty URI')
  if (uri.length > MAX_URI_CHARS) throw new Error('the URI is too long')
  return type === 'ERC-1155' ? uri.replaceAll('{id}', BigInt(tokenId).toString(16).padStart(64, '0')) : uri
}
