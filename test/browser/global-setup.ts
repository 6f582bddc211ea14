import type { TestProject } from 'vitest/node'
import served, { serveWorker } from '../served/global-setup'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The origin of a Worker served with no model configured, as `npm start` runs by default, and 30 requests a minute. */
    bareOrigin: string
  }
}

/** The served Worker with the fake upstream (see ../served), and one with no model at all and a low request limit. */
export default async function setup(project: TestProject) {
  const stopServed = await served(project)
  const bare = await serveWorker({ RATE_LIMIT_REQUESTS: '30' })
  project.provide('bareOrigin', bare.url.origin)
  return async () => {
    await bare.stop()
    await stopServed()
  }
}
