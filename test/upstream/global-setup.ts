import type { TestProject } from 'vitest/node'
import { startFakeOpenAI } from './fake-openai'

declare module 'vitest' {
  export interface ProvidedContext {
    upstreamUrl: string
  }
}

/** Starts the fake OpenAI-compatible upstream once for the workers tests. */
export default async function setup(project: TestProject) {
  const { url, server } = await startFakeOpenAI()
  project.provide('upstreamUrl', url)
  return () => new Promise<void>((resolve) => server.close(() => resolve()))
}
