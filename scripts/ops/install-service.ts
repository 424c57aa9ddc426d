// `npm run ops -- install-service`: a systemd unit and its environment file
// for running the testnet on a VM under a dedicated user, and a copy of Geth
// that user can run. It writes them and prints the commands that create the
// user and its directories and enable the service; it runs none of those
// (the operator should see them).
//
// The service keeps three places apart: its data (DATA_DIR), its caches
// (GETH_CACHE_DIR, SOLC_CACHE_DIR) and no home at all (/nonexistent), so no
// skeleton dotfiles or build caches land among the chain's files. It can write
// to the first two only: the unit's sandbox makes the rest of the system
// read-only and hides home directories.
import { chmod, copyFile, mkdir, rename, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Config } from '../../core/config.ts'
import type { Logger } from '../../core/logger.ts'
import { GethNotFoundError } from '../../core/errors.ts'
import { findBuiltGeth } from '../../geth/install.ts'
// @ts-expect-error plain JavaScript without declarations: it runs before anything is compiled
import { buildIfStale } from '../launch.mjs'

export const SERVICE_NAME = 'testnet-gateway'
const DEFAULT_USER = 'testnet'
const DEFAULT_DATA_DIR = '/var/lib/testnet-gateway'
const DEFAULT_CACHE_DIR = '/var/cache/testnet-gateway'
/** Outside any home directory, so the service sees it whoever built Geth (`npm run geth:install` as another user). */
const DEFAULT_GETH_DIR = '/usr/local/lib/testnet-gateway'
export const DEFAULT_UNIT_FILE = `/etc/systemd/system/${SERVICE_NAME}.service`
export const DEFAULT_ENV_FILE = `/etc/${SERVICE_NAME}/${SERVICE_NAME}.env`
/** scripts/start.ts gives shutdown 30 s before it exits anyway; systemd must wait longer, or it kills Geth mid-flush. */
export const STOP_TIMEOUT_S = 45
const RESTART_DELAY_S = 5
/**
 * systemd's default start limit (5 starts in 10 s) is never reached with a
 * restart every 5 s, so a setting that fails every start restarted forever.
 * 5 starts in 5 minutes: the unit then stays failed and says so.
 */
export const START_LIMIT_BURST = 5
export const START_LIMIT_INTERVAL_S = 300
/** Geth's database, PostgreSQL and every WebSocket subscriber each hold descriptors. */
const OPEN_FILES_LIMIT = 65536
/** Hidden from the service by ProtectHome=. */
const HOME_ROOTS = ['/home', '/root', '/run/user']

export type InstallServiceArgs = {
  user: string | undefined
  dataDir: string | undefined
  cacheDir: string | undefined
  gethDir: string | undefined
  unitFile: string | undefined
  envFile: string | undefined
}

export type ServicePaths = { user: string, dataDir: string, cacheDir: string, gethBin: string, envFile: string, checkout: string, node: string }

export type ServiceFiles = { unit: string, env: string }

/** The service's command: the one place that says how the gateway is started. */
export function serviceExecStart (node: string): string {
  // The compiled dist/ (checked against the sources first), as `npm start` serves it.
  return `${node} --max-semi-space-size=32 scripts/launch.mjs`
}

export function renderServiceFiles (paths: ServicePaths): ServiceFiles {
  const { user, envFile, checkout, node } = paths
  const unit = `# Written by \`npm run ops -- install-service\`; settings go in ${envFile}.
[Unit]
Description=testnet-gateway: EVM testnet node, indexer and Blockscout-compatible API
Documentation=file://${checkout}/docs/operations.md
After=network-online.target
Wants=network-online.target
# A setting that fails every start stops it here rather than restarting forever.
StartLimitIntervalSec=${START_LIMIT_INTERVAL_S}
StartLimitBurst=${START_LIMIT_BURST}

[Service]
Type=simple
User=${user}
Group=${user}
WorkingDirectory=${checkout}
EnvironmentFile=${envFile}
ExecStart=${serviceExecStart(node)}
# SIGTERM to the gateway alone: it stops the indexer, Geth and PostgreSQL in order.
# Whatever is left when the timeout runs out is killed.
KillMode=mixed
KillSignal=SIGTERM
TimeoutStopSec=${STOP_TIMEOUT_S}
Restart=on-failure
RestartSec=${RESTART_DELAY_S}
LimitNOFILE=${OPEN_FILES_LIMIT}
StandardOutput=journal
StandardError=journal
SyslogIdentifier=${SERVICE_NAME}
${renderSandbox(paths).join('\n')}

[Install]
WantedBy=multi-user.target
`
  return { unit, env: renderEnvironment(paths) }
}

/**
 * What the gateway, Geth and PostgreSQL need: their data and caches read-write,
 * the checkout, Node and Geth read-only, TCP and Unix sockets, and nothing
 * else. Not MemoryDenyWriteExecute: V8 writes the code it compiles.
 */
function renderSandbox ({ dataDir, cacheDir, gethBin, checkout, node }: ServicePaths): string[] {
  return [
    '# Sandbox: files the gateway makes are private, the system is read-only but for',
    '# the data and cache directories, and no privilege can be gained.',
    'UMask=0077',
    'ProtectSystem=strict',
    `ReadWritePaths=${dataDir} ${cacheDir}`,
    ...renderHomeProtection([checkout, dirname(dirname(node)), dirname(gethBin)], [dataDir, cacheDir]),
    'PrivateTmp=true',
    'PrivateDevices=true',
    'NoNewPrivileges=true',
    'CapabilityBoundingSet=',
    'AmbientCapabilities=',
    'ProtectKernelTunables=true',
    'ProtectKernelModules=true',
    'ProtectKernelLogs=true',
    'ProtectControlGroups=true',
    'ProtectClock=true',
    'ProtectHostname=true',
    'ProtectProc=invisible',
    'RestrictSUIDSGID=true',
    'RestrictRealtime=true',
    'RestrictNamespaces=true',
    'LockPersonality=true',
    'RemoveIPC=true',
    'PrivateMounts=true',
    // AF_NETLINK: Node and Go list the network interfaces through it.
    'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK',
    'SystemCallArchitectures=native',
    // Not ~@resources: Geth raises its open-files limit with setrlimit and stops when it cannot.
    'SystemCallFilter=@system-service',
    'SystemCallFilter=~@privileged',
    'SystemCallErrorNumber=EPERM'
  ]
}

/**
 * ProtectHome=true hides /home, /root and /run/user. A checkout (or Node, or a
 * data directory) under one of them is bound into an empty tmpfs instead, so
 * the service sees those paths and no other file of any home.
 */
function renderHomeProtection (readOnly: string[], writable: string[]): string[] {
  const isUnderHome = (path: string): boolean => HOME_ROOTS.some((root) => path === root || path.startsWith(`${root}/`))
  const hiddenReadOnly = [...new Set(readOnly.filter(isUnderHome))]
  const hiddenWritable = [...new Set(writable.filter(isUnderHome))]
  if (hiddenReadOnly.length === 0 && hiddenWritable.length === 0) return ['ProtectHome=true']
  return [
    'ProtectHome=tmpfs',
    ...(hiddenReadOnly.length > 0 ? [`BindReadOnlyPaths=${hiddenReadOnly.join(' ')}`] : []),
    ...(hiddenWritable.length > 0 ? [`BindPaths=${hiddenWritable.join(' ')}`] : [])
  ]
}

function renderEnvironment ({ dataDir, cacheDir, gethBin }: ServicePaths): string {
  return `# testnet-gateway settings (docs/configuration.md lists every variable).
DATA_DIR=${dataDir}
# The service has no home: its caches are here, apart from its data.
GETH_CACHE_DIR=${cacheDir}
SOLC_CACHE_DIR=${cacheDir}/solc
# Copied by install-service, readable by every user: the service never builds Geth itself.
GETH_BIN=${gethBin}
HOST=0.0.0.0
PORT=4000
LOG_LEVEL=info
# A public instance runs the faucet by default; FAUCET_ENABLED=false turns it off.
# METRICS_ALLOW=10.0.0.0/8
# ADMIN_TOKEN=
# DATABASE_URL=postgres://gateway:secret@db.internal:5432/gateway
`
}

export async function runInstallService (args: InstallServiceArgs, config: Config, log: Logger, out: (line: string) => void): Promise<number> {
  const user = args.user ?? DEFAULT_USER
  const dataDir = resolve(args.dataDir ?? DEFAULT_DATA_DIR)
  const cacheDir = resolve(args.cacheDir ?? DEFAULT_CACHE_DIR)
  const gethDir = resolve(args.gethDir ?? DEFAULT_GETH_DIR)
  const unitFile = resolve(args.unitFile ?? DEFAULT_UNIT_FILE)
  const envFile = resolve(args.envFile ?? DEFAULT_ENV_FILE)
  const checkout = resolve(fileURLToPath(new URL('../..', import.meta.url)))
  const found = await findBuiltGeth({ bin: config.geth.bin, cacheDir: config.geth.cacheDir, log, env: config.childEnv })
  // The service must not need Go on its first start: it gets a Geth that is already built.
  if (found === undefined) throw new GethNotFoundError('install-service copies an already built one for the service (GETH_BIN, geth on PATH or the cache of `npm run geth:install`): run `npm run geth:install` first')
  const gethBin = await installGeth(found, gethDir)
  // The service cannot write the checkout (ProtectSystem=strict): it starts on a dist/ compiled here.
  if ((buildIfStale as () => boolean)()) out(`compiled ${join(checkout, 'dist')}`)
  const files = renderServiceFiles({ user, dataDir, cacheDir, gethBin, envFile, checkout, node: process.execPath })
  await mkdir(dirname(unitFile), { recursive: true })
  await mkdir(dirname(envFile), { recursive: true })
  await writeFile(unitFile, files.unit)
  // The environment file may come to hold ADMIN_TOKEN or a database password.
  await writeFile(envFile, files.env, { mode: 0o640 })
  out(gethBin === found ? `Geth: ${gethBin}` : `copied ${found} to ${gethBin}`)
  out(`wrote ${unitFile}`)
  out(`wrote ${envFile}`)
  out('then, as root:')
  out(`  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin ${user}`)
  out(`  install -d -m 0700 -o ${user} -g ${user} ${dataDir} ${cacheDir}`)
  out(`  chown root:${user} ${envFile}`)
  out('  systemctl daemon-reload')
  out(`  systemctl enable --now ${SERVICE_NAME}`)
  out(`  journalctl -u ${SERVICE_NAME} -f    # its logs`)
  out(`The service user must be able to read ${checkout} (and its node_modules).`)
  return 0
}

/** A copy every user can run, in a directory of its own; replaced whole, so a running Geth keeps its file. */
async function installGeth (found: string, gethDir: string): Promise<string> {
  const target = join(gethDir, 'geth')
  if (resolve(found) === target) return target
  await mkdir(gethDir, { recursive: true, mode: 0o755 })
  const partial = `${target}.${process.pid}.partial`
  await copyFile(found, partial)
  await chmod(partial, 0o755)
  await rename(partial, target)
  return target
}
