// `npm run ops -- tag <address> [name]`: names an address for the
// interpreter's summaries (a public tag), or removes its tag. Needs the
// database only.
import type { Knex } from 'knex'
import { getAddress } from 'ethers'
import { setPublicTag } from '../../core/interpreter/public-tags.ts'

export async function runTag (db: Knex, command: { address: string, tag: string | undefined }, out: (line: string) => void): Promise<number> {
  const address = command.address.toLowerCase()
  const forgotten = await setPublicTag(db, address, command.tag)
  const what = command.tag === undefined ? `${getAddress(address)} untagged` : `${getAddress(address)} tagged ${JSON.stringify(command.tag)}`
  out(`${what}; ${forgotten} cached summar${forgotten === 1 ? 'y' : 'ies'} naming it will be written again`)
  return 0
}
