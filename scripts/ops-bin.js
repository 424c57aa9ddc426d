#!/usr/bin/env node
// `npx testnet-gateway-ops <command>`: the operator commands of
// scripts/ops.ts. Unlike `npm run ops`, npm prints no banner on stdout
// before them, so a script can capture a command's output (a new API key).
import { register } from 'tsx/esm/api'

register()
await import('./ops.ts')
