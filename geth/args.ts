// Geth's command line. Every RPC listener binds to loopback: the signer is
// unlocked, so anyone reaching Geth's own RPC could spend from it. The public
// endpoint is the gateway's proxy, which never forwards signing methods.

/**
 * The private API set: debug for tracing, clique for signer queries, txpool for
 * pending state, miner to restart sealing (a period-0 clique sealer can stop
 * with transactions pending, go-ethereum#21189; a miner stop and start resumes it).
 */
export const GETH_PRIVATE_APIS = 'eth,net,web3,debug,txpool,clique,miner'

/**
 * Keep the preimages of hashed trie keys: without them debug_dumpBlock cannot
 * name the genesis accounts, and the indexer reads GENESIS_ALLOC balances that
 * way. `geth init` needs the flag too, as the genesis state is written there.
 */
export const PREIMAGE_ARGS = ['--cache.preimages']

export type GethArgsOptions = {
  gethDir: string
  keystoreDir: string
  passwordFile: string
  signer: string
  chainId: number
  httpPort: number
  wsPort: number
  authPort: number
  gcmode: 'archive' | 'full'
  maxPeers: number
  /** P2P_PORT: listen for peers there; unset, port 0 (a random one) and no peers unless maxPeers says so. */
  p2pPort?: number | undefined
  /** P2P_EXTERNAL_IP: the address Geth gives peers for itself (--nat extip). */
  externalIp?: string | undefined
  /** A --config file naming the static peers (p2p.ts). */
  configFile?: string | undefined
  /** --mine from the start: our key is a signer in the genesis. Otherwise signer-role.ts starts the miner once it is voted in. */
  seal?: boolean
}

export function buildGethArgs (o: GethArgsOptions): string[] {
  return [
    '--datadir', o.gethDir,
    '--keystore', o.keystoreDir,
    '--networkid', String(o.chainId),
    '--syncmode', 'full',
    // archive keeps every block's state so old blocks can be traced and no
    // crash rewinds the head (with full, an unclean stop re-seals heights).
    '--gcmode', o.gcmode,
    ...PREIMAGE_ARGS,
    ...(o.configFile !== undefined ? ['--config', o.configFile] : []),
    // Discovery off: peers are the static ones (P2P_PEERS, JOIN_URL's), and a
    // plain Geth joins with --bootnodes <our enode>, which it dials itself.
    '--nodiscover',
    '--maxpeers', String(o.maxPeers),
    // Port 0 without P2P_PORT: several nodes (tests) on one machine never fight over 30303.
    '--port', String(o.p2pPort ?? 0),
    '--nat', o.externalIp !== undefined ? `extip:${o.externalIp}` : 'none',
    '--ipcdisable',
    '--http', '--http.addr', '127.0.0.1', '--http.port', String(o.httpPort), '--http.api', GETH_PRIVATE_APIS,
    '--ws', '--ws.addr', '127.0.0.1', '--ws.port', String(o.wsPort), '--ws.api', GETH_PRIVATE_APIS,
    '--authrpc.addr', '127.0.0.1', '--authrpc.port', String(o.authPort),
    ...(o.seal === false ? [] : ['--mine']),
    '--miner.etherbase', o.signer,
    // Every transaction reaches Geth through its RPC, which would make each a
    // "local" one: exempt from the price floor (a zero-fee transaction was
    // accepted and never mined), never evicted, journalled across restarts.
    // Without locals the public endpoint's transactions meet the rules a
    // remote peer's do: a tip of at least --miner.gasprice (Geth sets its pool's
    // floor from it when it mines; 1 gwei by default), else "transaction underpriced".
    '--txpool.nolocals',
    '--unlock', o.signer, '--password', o.passwordFile,
    // Geth refuses to unlock with HTTP on unless told; it listens on loopback only.
    '--allow-insecure-unlock',
    '--log.format', 'json',
    '--verbosity', '3'
  ]
}
