// The gastracker module's arithmetic: gwei as Etherscan writes it, and the
// empty blocks a base fee takes to fall to a price (EIP-1559's eighth a block).
import t from 'tap'
import { blocksUntilBaseFee, toGwei } from '../../../plugins/etherscan/gastracker.ts'

t.test('toGwei writes wei as Etherscan\'s gwei; blocksUntilBaseFee counts the empty blocks a base fee takes to fall', async (t) => {
  t.equal(toGwei(30n * 10n ** 9n), '30')
  t.equal(toGwei(1_500_000_000n), '1.5')
  t.equal(toGwei(7n), '0.000000007')
  t.equal(toGwei(0n), '0')
  t.equal(blocksUntilBaseFee(1000n, 1000n), 1)
  t.equal(blocksUntilBaseFee(1000n, 875n), 2)
  t.equal(blocksUntilBaseFee(1000n, 874n), 3)
  t.equal(blocksUntilBaseFee(1000n, 0n), undefined, 'a base fee stops falling below 8 wei')
})
