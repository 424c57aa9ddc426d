// Writes core/decode/signatures.json: the selector table the decoder falls back
// on when a call's target has no verified ABI. The fragments are written here
// by hand from the standards and the contracts everyone deploys (ERC-20, 721,
// 1155, Ownable, AccessControl, Multicall3, WETH, EIP-2612, Uniswap V2/V3
// routers, Safe); ethers computes each selector and topic, so nothing is
// copied from a signature database. Run: node --import tsx scripts/gen-signatures.ts
// test/core/decode/signatures.test.ts regenerates the table and compares.
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Interface, type EventFragment, type FunctionFragment } from 'ethers'

export const SIGNATURES_FILE = fileURLToPath(new URL('../core/decode/signatures.json', import.meta.url))

// Order matters where selectors collide: the first fragment that decodes wins
// (core/decode/table.ts). ERC-20's transferFrom and approve come before
// ERC-721's same-selector ones, whose encodings are identical anyway.
const FUNCTIONS = [
  // ERC-20 and its common extensions
  'function transfer(address to, uint256 amount)',
  'function transferFrom(address from, address to, uint256 amount)',
  'function approve(address spender, uint256 amount)',
  'function increaseAllowance(address spender, uint256 addedValue)',
  'function decreaseAllowance(address spender, uint256 subtractedValue)',
  'function mint(address to, uint256 amount)',
  'function burn(uint256 amount)',
  'function burnFrom(address account, uint256 amount)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  // ERC-721
  'function safeTransferFrom(address from, address to, uint256 tokenId)',
  'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
  'function setApprovalForAll(address operator, bool approved)',
  'function safeMint(address to, uint256 tokenId)',
  // ERC-1155
  'function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)',
  'function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] values, bytes data)',
  'function mint(address to, uint256 id, uint256 amount, bytes data)',
  'function mintBatch(address to, uint256[] ids, uint256[] amounts, bytes data)',
  // Ownable, AccessControl
  'function transferOwnership(address newOwner)',
  'function renounceOwnership()',
  'function acceptOwnership()',
  'function grantRole(bytes32 role, address account)',
  'function revokeRole(bytes32 role, address account)',
  'function renounceRole(bytes32 role, address callerConfirmation)',
  // Pausable, proxies
  'function pause()',
  'function unpause()',
  'function upgradeTo(address newImplementation)',
  'function upgradeToAndCall(address newImplementation, bytes data)',
  // WETH
  'function deposit()',
  'function withdraw(uint256 wad)',
  // Multicall3 and the routers' multicall
  'function aggregate((address target, bytes callData)[] calls)',
  'function tryAggregate(bool requireSuccess, (address target, bytes callData)[] calls)',
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls)',
  'function aggregate3Value((address target, bool allowFailure, uint256 value, bytes callData)[] calls)',
  'function multicall(bytes[] data)',
  'function multicall(uint256 deadline, bytes[] data)',
  // Uniswap V2-style router
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
  'function swapTokensForExactTokens(uint256 amountOut, uint256 amountInMax, address[] path, address to, uint256 deadline)',
  'function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline)',
  'function swapTokensForExactETH(uint256 amountOut, uint256 amountInMax, address[] path, address to, uint256 deadline)',
  'function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
  'function swapETHForExactTokens(uint256 amountOut, address[] path, address to, uint256 deadline)',
  'function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline)',
  'function addLiquidityETH(address token, uint256 amountTokenDesired, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline)',
  'function removeLiquidity(address tokenA, address tokenB, uint256 liquidity, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline)',
  'function removeLiquidityETH(address token, uint256 liquidity, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline)',
  // Uniswap V3-style router
  'function exactInputSingle((address tokenIn, address tokenOut, uint24 fee, address recipient, uint256 deadline, uint256 amountIn, uint256 amountOutMinimum, uint160 sqrtPriceLimitX96) params)',
  'function exactInput((bytes path, address recipient, uint256 deadline, uint256 amountIn, uint256 amountOutMinimum) params)',
  'function exactOutputSingle((address tokenIn, address tokenOut, uint24 fee, address recipient, uint256 deadline, uint256 amountOut, uint256 amountInMaximum, uint160 sqrtPriceLimitX96) params)',
  'function exactOutput((bytes path, address recipient, uint256 deadline, uint256 amountOut, uint256 amountInMaximum) params)',
  // Safe
  'function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures)'
]

// Events sharing a topic (ERC-20's and ERC-721's Transfer and Approval) are
// told apart by how many of their parameters are indexed.
const EVENTS = [
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
  'event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)',
  'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  'event URI(string value, uint256 indexed id)',
  'event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)',
  'event RoleGranted(bytes32 indexed role, address indexed account, address indexed sender)',
  'event RoleRevoked(bytes32 indexed role, address indexed account, address indexed sender)',
  'event RoleAdminChanged(bytes32 indexed role, bytes32 indexed previousAdminRole, bytes32 indexed newAdminRole)',
  'event Paused(address account)',
  'event Unpaused(address account)',
  'event Upgraded(address indexed implementation)',
  'event AdminChanged(address previousAdmin, address newAdmin)',
  'event Deposit(address indexed dst, uint256 wad)',
  'event Withdrawal(address indexed src, uint256 wad)',
  'event PairCreated(address indexed token0, address indexed token1, address pair, uint256 pairIndex)',
  'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
  'event Sync(uint112 reserve0, uint112 reserve1)',
  'event Mint(address indexed sender, uint256 amount0, uint256 amount1)',
  'event Burn(address indexed sender, uint256 amount0, uint256 amount1, address indexed to)',
  'event ExecutionSuccess(bytes32 txHash, uint256 payment)',
  'event ExecutionFailure(bytes32 txHash, uint256 payment)'
]

export type SignatureTable = {
  /** Function fragments in ethers' full human-readable form, by 0x-selector. */
  functions: Array<{ selector: string, fragment: string }>
  /** Event fragments, by topic 0. */
  events: Array<{ topic: string, fragment: string }>
}

export function generateSignatures (): SignatureTable {
  const functions = FUNCTIONS.map((text) => {
    const fragment = new Interface([text]).fragments[0] as FunctionFragment
    return { selector: fragment.selector, fragment: fragment.format('full') }
  })
  const events = EVENTS.map((text) => {
    const fragment = new Interface([text]).fragments[0] as EventFragment
    return { topic: fragment.topicHash, fragment: fragment.format('full') }
  })
  return { functions, events }
}

export function signaturesJson (): string {
  return JSON.stringify(generateSignatures(), null, 2) + '\n'
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SIGNATURES_FILE, signaturesJson())
  console.log(`wrote ${SIGNATURES_FILE}`)
}
