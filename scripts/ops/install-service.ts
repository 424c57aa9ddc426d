// `npm run ops -- install-service`: a systemd unit and its environment file
// for running the testnet on a VM under a dedicated user. It writes them and
// prints the commands that create the user and enable the service; it runs
// none of them (they need root, and the operator should see them).
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const SERVICE_NAME = 'testnet-gateway'
const DEFAULT_USER = 'testnet'
const DEFAULT_DATA_DIR = '/var/lib/testnet-gateway'
export const DEFAULT_UNIT_FILE = `/etc/systemd/system/${SERVICE_NAME}.service`
export const DEFAULT_ENV_FILE = `/etc/${SERVICE_NAME}/${SERVICE_NAME}.env`
/** scripts/start.ts gives shutdown 30 s before it exits anyway; systemd must wait longer, or it kills Geth mid-flush. */
export const STOP_TIMEOUT_S = 45
/** Geth's database, PostgreSQL and every WebSocket subscriber each hold descriptors. */
const OPEN_FILES_LIMIT = 65536

export type InstallServiceArgs = { user: string | undefined, dataDir: string | undefined, unitFile: string | undefined, envFile: string | undefined }

export type ServiceFiles = { unit: string, env: string }

export function renderServiceFiles ({ user, dataDir, envFile, checkout, node }: { user: string, dataDir: string, envFile: string, checkout: string, node: string }): ServiceFiles {
  const unit = `# Written by \`npm run ops -- install-service\`; settings go in ${envFile}.
[Unit]
Description=testnet-gateway: EVM testnet node, indexer and Blockscout-compatible API
Documentation=file://${checkout}/docs/operations.md
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=${user}
Group=${user}
WorkingDirectory=${checkout}
EnvironmentFile=${envFile}
ExecStart=${node} --max-semi-space-size=32 --import tsx scripts/start.ts
# SIGTERM to the gateway alone: it stops the indexer, Geth and PostgreSQL in order.
# Whatever is left when the timeout runs out is killed.
KillMode=mixed
KillSignal=SIGTERM
TimeoutStopSec=${STOP_TIMEOUT_S}
Restart=on-failure
RestartSec=5
LimitNOFILE=${OPEN_FILES_LIMIT}
StandardOutput=journal
StandardError=journal
SyslogIdentifier=${SERVICE_NAME}
NoNewPrivileges=true
PrivateTmp=true
ProtectSystem=full

[Install]
WantedBy=multi-user.target
`
  const env = `# testnet-gateway settings (docs/operations.md and the README's configuration table list them all).
DATA_DIR=${dataDir}
HOST=0.0.0.0
PORT=4000
LOG_LEVEL=info
# A public instance runs the faucet by default; FAUCET_ENABLED=false turns it off.
# METRICS_ALLOW=10.0.0.0/8
# ADMIN_TOKEN=
# DATABASE_URL=postgres://gateway:secret@db.internal:5432/gateway
`
  return { unit, env }
}

export async function runInstallService (args: InstallServiceArgs, out: (line: string) => void): Promise<number> {
  const user = args.user ?? DEFAULT_USER
  const dataDir = resolve(args.dataDir ?? DEFAULT_DATA_DIR)
  const unitFile = resolve(args.unitFile ?? DEFAULT_UNIT_FILE)
  const envFile = resolve(args.envFile ?? DEFAULT_ENV_FILE)
  const checkout = resolve(fileURLToPath(new URL('../..', import.meta.url)))
  const files = renderServiceFiles({ user, dataDir, envFile, checkout, node: process.execPath })
  await mkdir(dirname(unitFile), { recursive: true })
  await mkdir(dirname(envFile), { recursive: true })
  await writeFile(unitFile, files.unit)
  // The environment file may come to hold ADMIN_TOKEN or a database password.
  await writeFile(envFile, files.env, { mode: 0o640 })
  out(`wrote ${unitFile}`)
  out(`wrote ${envFile}`)
  out('then, as root:')
  out(`  useradd --system --create-home --home-dir ${dataDir} --shell /usr/sbin/nologin ${user}`)
  out(`  chown root:${user} ${envFile}`)
  out(`  chown -R ${user}: ${dataDir}`)
  out('  systemctl daemon-reload')
  out(`  systemctl enable --now ${SERVICE_NAME}`)
  out(`  journalctl -u ${SERVICE_NAME} -f    # its logs`)
  out(`The service user must be able to read ${checkout} (and its node_modules).`)
  return 0
}
