// The names the REST API shows on address objects (core/address-names): one
// reader for the app, which forgets what it keeps when a contract is verified
// here and when any instance or `npm run ops -- tag` announces a change.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createAddressNameReader, type AddressNameReader } from '../../core/address-names/index.ts'

declare module 'fastify' {
  interface FastifyInstance {
    addressNames: AddressNameReader
  }
}

async function addressNames (app: FastifyInstance): Promise<void> {
  const reader = await createAddressNameReader({ queries: app.queries, listen: { databaseUrl: app.db.url, log: app.log.child({ name: 'address-names' }) } })
  app.decorate('addressNames', reader)
  app.addHook('onClose', async () => await reader.close())
  // Heard through the database too, but the verifying instance shows it before that notice arrives.
  const stop = app.verifier.subscribe((event) => { if (event.status === 'success') reader.forget() })
  app.addHook('onClose', async () => { stop() })
}

export default fp(addressNames, { name: 'address-names', fastify: '5.x', dependencies: ['db', 'verify'] })
