import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'

/** The HS256 secret the workers tests sign their tokens with (see test/helpers.ts). */
const TEST_JWT_SECRET = 'test-secret-for-vitest-only'

const workers = {
  // The first request of a file loads the Worker and its tokenizer tables through Vite's module
  // runner, which takes seconds on a 2-core machine.
  testTimeout: 30_000,
  globalSetup: ['test/upstream/global-setup.ts'],
}

// Three projects: the pure code in plain Node (the compaction core, proving it needs no Workers
// runtime, and the pure parts of the other layers); everything else inside workerd with real
// Durable Object storage, against a fake OpenAI-compatible upstream on loopback; and the same
// with no model configured at all.
const pure = [
  'src/core/**/*.test.ts',
  'src/contract/**/*.test.ts',
  'src/compaction/**/*.test.ts',
  'src/turns/**/*.test.ts',
  'src/store/session/append-input.test.ts',
]
export default defineConfig({
  test: {
    projects: [
      {
        test: { name: 'node', environment: 'node', include: pure },
      },
      {
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: {
              bindings: {
                JWT_SECRET: TEST_JWT_SECRET,
                OPENAI_BASE_URL: `${inject('upstreamUrl')}/v1`,
                OPENAI_API_KEY: 'test-upstream-key',
                CHAT_MODEL: 'echo',
                SUMMARY_MODEL: 'echo',
                MODEL_TIMEOUT_MS: '2000',
              },
            },
          })),
        ],
        test: {
          ...workers,
          name: 'workers',
          include: ['src/{store,http,models}/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['test/unconfigured/**', ...pure],
        },
      },
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: { bindings: { JWT_SECRET: TEST_JWT_SECRET } },
          }),
        ],
        test: { ...workers, name: 'unconfigured', include: ['test/unconfigured/**/*.test.ts'] },
      },
    ],
  },
})
