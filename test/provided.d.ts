// What the workers projects' global setup (test/upstream/global-setup.ts, compiled for Node and
// so outside this tsconfig) provides to the tests inside workerd.
declare module 'vitest' {
  export interface ProvidedContext {
    /** The fake identity provider's base URL (`<idpUrl>/<tenant>/jwks`). */
    idpUrl: string
    /** The fake webhook receiver's base URL (`<receiverUrl>/<name>/<mode>`). */
    receiverUrl: string
  }
}

export {}
