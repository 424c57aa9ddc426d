import { access } from 'node:fs/promises'

export async function pathExists (path: string): Promise<boolean> {
  return await access(path).then(() => true, () => false)
}
