import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'

/** The HS256 secret the workers tests sign their tokens with (see test/helpers.ts). */
const TEST_JWT_SECRET = 'test-secret-for-vitest-only'

// Two projects: the pure compaction core in plain Node (proving it needs no Workers runtime),
// and everything else inside workerd with real Durable Object storage.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'core',
          environment: 'node',
          include: ['src/core/**/*.test.ts'],
        },
      },
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: { bindings: { JWT_SECRET: TEST_JWT_SECRET } },
          }),
        ],
        test: {
          name: 'workers',
          // The first request of a file loads the Worker and its tokenizer tables through Vite's
          // module runner, which takes seconds on a 2-core machine.
          testTimeout: 30_000,
          include: ['src/{store,http,models}/**/*.test.ts', 'test/**/*.test.ts'],
        },
      },
    ],
  },
})
