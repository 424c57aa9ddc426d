// What `npm run ops -- --help` and `npm run ops -- <command> --help` print.
export const COMMAND_USAGE = {
  status: `status [--json]
      The instance's state: chain ID, head and its age, clique signer, whether
      Geth seals, the indexer's role, head and lag, database size, GraphQL on
      or off (and whether a restart is pending), the URLs served, versions.
      Reads the gateway running on DATA_DIR (DATA_DIR/endpoints.json); when
      none runs it says so and shows what DATA_DIR holds. --json prints one
      JSON object. Exit code 0 when a gateway runs, 3 when none does.`,
  'verify-index': `verify-index [--from N] [--to M]
      Compare the index with the node block by block: hash, parent hash, the
      transaction hashes in order and their statuses, and the log count. Prints
      one line per mismatch, then a summary. Checks blocks 0 to the index head
      unless --from/--to say otherwise. Exit code 0 only when nothing differs.`,
  reindex: `reindex --from N
      Delete the indexed blocks from N up (with their transactions, logs and
      internal transactions) and index them again up to the node's head. Takes
      the indexer lock: refuses while a gateway indexes the same database.`,
  graphql: `graphql on|off
      Turn this instance's GraphQL API on or off in DATA_DIR/config.json
      (GRAPHQL_ENABLED), and say whether the running gateway needs a restart
      to apply it.`,
  faucet: `faucet <address> [amount]
      Send test coins (amount in coins, FAUCET_AMOUNT by default) from the
      faucet account, wait until mined, print the transaction hash. An
      operator's send: no cooldown, nothing charged. Serialised with the
      gateway's own faucet sends, so nonces never collide.`,
  'install-service': `install-service [--user U] [--data-dir D] [--cache-dir C] [--geth-dir G] [--unit-file F] [--environment-file E]
      Write a sandboxed systemd unit (default /etc/systemd/system/testnet-gateway.service)
      and its environment file (default /etc/testnet-gateway/testnet-gateway.env)
      running this checkout's gateway as user U (default testnet) on data
      directory D (default /var/lib/testnet-gateway) with its caches in C
      (default /var/cache/testnet-gateway); copy the Geth found (GETH_BIN, PATH
      or the cache npm run geth:install builds into) into G (default
      /usr/local/lib/testnet-gateway) for the service to run, and print the
      commands that create the user and directories and enable the service.
      (Not --env-file: Node 20 takes that flag for itself wherever it appears
      on the command line.)`,
  backup: `backup <dir>
      A consistent backup of a running or stopped instance into a new or empty
      directory: every database table copied in one snapshot, then the chain's
      blocks 0..head read from the node (geth export's format), the keys,
      genesis and config.json, and manifest.json (heads, signer, row counts).`,
  restore: `restore <dir>
      Restore a backup into an empty DATA_DIR (and an empty database: the
      embedded one, or DATABASE_URL): keys and genesis copied, the chain
      rebuilt by geth init and geth import, the rows copied back into this
      version's schema and counted. Then start the gateway.`,
  keys: `keys create --label L [--tier premium|public] [--limit N]
       keys list [--json] | keys revoke <id|label> | keys rotate <id|label> [--grace S]
      Create an API key (tier premium unless told; --limit: its own requests
      a minute), printed once: only its SHA-256 is stored. list: every key's
      id, label, tier, limit, created, last used, requests today, revoked,
      never the key (--json: a JSON array, for scripts). revoke: the key with this id, or every live key with
      this label (every instance refuses it within a second). rotate: a new
      key with the old one's label, tier and limit; the old one keeps working
      for S seconds (default 0). Needs the database only.`,
  'explorer-env': `explorer-env [--api-url URL] [--app-url URL]
      Print the environment file for Blockscout's front end image pointed at
      this instance: --api-url is the gateway as browsers reach it (default
      where the gateway running on DATA_DIR serves, else http://HOST:PORT),
      --app-url the front end (default http://localhost:3000).`,
  stats: `stats rebuild
      Compute the Stats API's daily figures again from the indexed tables,
      keep them, and print each day and figure where the incremental ones
      differed. Exit code 0 only when nothing differed.`,
  tag: `tag <address> [name]
      Name an address in transaction summaries (a public tag: used when the
      address is neither a verified contract nor a token); without a name,
      remove its tag. Cached summaries naming it are written again when next
      asked. Needs the database only.`,
  signers: `signers [list] | signers self | signers propose|remove|discard <address>
      The chain's clique signers and this node's pending votes (clique_getSigners,
      clique_proposals). propose: vote <address> in; remove: vote it out; a
      vote passes once more than half the signers made it, each signer voting
      through its own instance. discard: withdraw this node's vote on <address>
      (Geth lists a vote that passed until it is discarded).
      self: this instance's signer key (DATA_DIR's keystore), the address the
      signers vote in for a joined instance, and whether it is a signer. Votes
      go to the running gateway's Geth (or GETH_RPC_URL): clique keeps them in
      memory until they are sealed into blocks. See docs/network.md.`
} as const

export type OpsCommandName = keyof typeof COMMAND_USAGE

export const USAGE = `Usage: npm run ops -- <command> [options]
       npm run ops -- <command> --help

Commands:
${Object.values(COMMAND_USAGE).map((text) => `  ${text}`).join('\n')}

Options:
  --help    this text, or one command's

Node and database: GETH_RPC_URL and DATABASE_URL when set; otherwise those of
the gateway running on DATA_DIR (DATA_DIR/endpoints.json); otherwise ops starts
Geth and embedded PostgreSQL from DATA_DIR itself and stops them when done.
Exit codes: 0 done, 1 mismatches found or the command failed, 2 bad command line,
3 (status) no gateway running.`
