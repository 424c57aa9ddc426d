// Relay global ids as Blockscout makes them: base64 of "<Type>:<local id>".
export const toGlobalId = (type: string, local: string): string => Buffer.from(`${type}:${local}`).toString('base64')

export function fromGlobalId (id: string): { type: string, local: string } | undefined {
  const decoded = Buffer.from(id, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon <= 0 ? undefined : { type: decoded.slice(0, colon), local: decoded.slice(colon + 1) }
}
