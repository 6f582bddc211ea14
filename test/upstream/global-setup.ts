import type { TestProject } from 'vitest/node'
import { startFakeIdp } from './fake-idp'
import { startFakeOpenAI } from './fake-openai'

declare module 'vitest' {
  export interface ProvidedContext {
    upstreamUrl: string
    /** The fake identity provider's base URL (`<idpUrl>/<tenant>/jwks`). */
    idpUrl: string
  }
}

/** Starts the fake OpenAI-compatible upstream and the fake identity provider once for the workers tests. */
export default async function setup(project: TestProject) {
  const upstream = await startFakeOpenAI()
  const idp = await startFakeIdp()
  project.provide('upstreamUrl', upstream.url)
  project.provide('idpUrl', idp.url)
  const close = (server: typeof idp.server) => new Promise<void>((resolve) => server.close(() => resolve()))
  return async () => {
    await close(upstream.server)
    await close(idp.server)
  }
}
