// Which transfers of a committed batch name an NFT id to read: mints of
// ERC-721 and ERC-1155 ids, each once.
import t from 'tap'
import { mintedInstances } from '../../../core/nft-metadata/fetcher.ts'

const ZERO = `0x${'00'.repeat(20)}`
const NFT = `0x${'ab'.repeat(20)}`
const MULTI = `0x${'cd'.repeat(20)}`
const transfer = (token: string, type: string, from: string, id: string | null) => ({ token_address: token, token_type: type, from, token_id: id })

t.test('mints of ERC-721 and ERC-1155 ids, each once, across batches', async (t) => {
  const minted = mintedInstances([
    { tokenTransfers: [transfer(NFT, 'ERC-721', ZERO, '1'), transfer(NFT, 'ERC-721', ZERO, '1'), transfer(MULTI, 'ERC-1155', ZERO, '5')] },
    { tokenTransfers: [transfer(MULTI, 'ERC-1155', ZERO, '5'), transfer(NFT, 'ERC-721', ZERO, '2')] }
  ])
  t.same(minted.map((m) => [`0x${m.token.toString('hex')}`, m.tokenId, m.type]), [[NFT, '1', 'ERC-721'], [MULTI, '5', 'ERC-1155'], [NFT, '2', 'ERC-721']])
})

t.test('transfers between holders and fungible mints name nothing to read', async (t) => {
  t.same(mintedInstances([{
    tokenTransfers: [transfer(NFT, 'ERC-721', `0x${'11'.repeat(20)}`, '3'), transfer(`0x${'ee'.repeat(20)}`, 'ERC-20', ZERO, null)]
  }]), [])
})
