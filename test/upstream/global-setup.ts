import type { TestProject } from 'vitest/node'
import { startFakeAnthropic } from './fake-anthropic'
import { startFakeIdp } from './fake-idp'
import { startFakeOpenAI } from './fake-openai'
import { startFakeReceiver } from './fake-receiver'

declare module 'vitest' {
  export interface ProvidedContext {
    upstreamUrl: string
    /** The fake Anthropic upstream's base URL (without /v1, as ANTHROPIC_BASE_URL takes it). */
    anthropicUrl: string
    /** The fake identity provider's base URL (`<idpUrl>/<tenant>/jwks`). */
    idpUrl: string
    /** The fake webhook receiver's base URL (`<receiverUrl>/<name>/<mode>`). */
    receiverUrl: string
  }
}

/** Starts the fake OpenAI-compatible upstream and the fake identity provider once for the workers tests. */
export default async function setup(project: TestProject) {
  const upstream = await startFakeOpenAI()
  const idp = await startFakeIdp()
  const anthropic = await startFakeAnthropic()
  const receiver = await startFakeReceiver()
  project.provide('receiverUrl', receiver.url)
  project.provide('upstreamUrl', upstream.url)
  project.provide('anthropicUrl', anthropic.url)
  project.provide('idpUrl', idp.url)
  const close = (server: typeof idp.server) => new Promise<void>((resolve) => server.close(() => resolve()))
  return async () => {
    await close(upstream.server)
    await close(idp.server)
    await close(anthropic.server)
    await close(receiver.server)
  }
}
