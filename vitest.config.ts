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
  'src/doors/**/*.test.ts',
  'src/wire/**/*.test.ts',
  'src/memory/**/*.test.ts',
  'src/mcp/schema.test.ts',
  'src/mcp/handler.test.ts',
  'src/object/frames/**/*.test.ts',
  'src/rate-limits/limits.test.ts',
  'src/json-stream/**/*.test.ts',
  'src/webhooks/retry.test.ts',
  'src/history/append-input.test.ts',
  'src/store/log/body-cache.test.ts',
  'src/store/search/fts-expression.test.ts',
  'test/docs/**/*.test.ts',
]
/** workerd with the Worker's configuration and the fake upstream as its model. */
const withUpstream = (bindings: Record<string, string> = {}) =>
  cloudflareTest(({ inject }) => ({
    wrangler: { configPath: './wrangler.toml' },
    miniflare: {
      bindings: {
        JWT_SECRET: TEST_JWT_SECRET,
        OPENAI_BASE_URL: `${inject('upstreamUrl')}/v1`,
        OPENAI_API_KEY: 'test-upstream-key',
        // Models named claude… go to the fake Anthropic upstream.
        ANTHROPIC_BASE_URL: inject('anthropicUrl'),
        ANTHROPIC_API_KEY: 'test-anthropic-key',
        CHAT_MODEL: 'echo',
        SUMMARY_MODEL: 'echo',
        // Limits off: the suite's many requests and concurrent turns as one user are not what it
        // tests; the `limits` project sets them, as a deployment does.
        RATE_LIMIT_REQUESTS: '0',
        RATE_LIMIT_TURNS: '0',
        MAX_QUEUED_TURNS: '0',
        // A receiver that does not answer is given up on after 1 s (15 s deployed).
        WEBHOOK_TIMEOUT_MS: '1000',
        ...bindings,
      },
    },
  }))

export default defineConfig({
  test: {
    // A Durable Object's alarm (a session's outbox, which retries) can fire as its test file's
    // workerd environment is torn down; the module it then resolves is refused
    // (cloudflare/workers-sdk#5388, #14736): after the file's tests have ended, so not theirs.
    // Only that refusal is let pass; any other late failure still fails the run.
    onUnhandledError: (error) =>
      !(error.name === 'EnvironmentTeardownError' && error.message.includes('Closing rpc while "resolve" was pending')),
    projects: [
      {
        test: { name: 'node', environment: 'node', include: pure },
      },
      {
        plugins: [
          // A small MEMORY_MAX_FILES, so that a test reaches it (the default, 1,000, is the benchmark's).
          // The agent loops' models: the window the issue proves them in (32k), and a small one.
          withUpstream({
            MODEL_TIMEOUT_MS: '2000',
            MODEL_CONTEXT_TOKENS: JSON.stringify({
              'echo#small': 2048,
              'loop-300#turns': 32768,
              'loop-300#chat': 32768,
              'loop-300#messages': 32768,
              'loop-300#responses': 32768,
              'loop-120#small': 8192,
              'loop-120#chat-small': 8192,
              'loop-120#messages-small': 8192,
              'loop-120#responses-small': 8192,
            }),
            MEMORY_MAX_FILES: '40',
          }),
        ],
        test: {
          ...workers,
          name: 'workers',
          include: ['src/{object,store,sql,history,reads,webhooks,rate-limits,http,models}/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [
            // Vitest's own default, which a project's exclude replaces: the agent CLIs installed in
            // test/cli (.ci/run) bring packages that ship tests of their own (zod's).
            '**/node_modules/**',
            'test/unconfigured/**',
            'test/misconfigured/**',
            'test/large/**',
            'test/limits/**',
            'test/clients/**',
            'test/browser/**',
            // The agent CLIs' own package (installed by .ci/run): its node_modules hold other packages' tests.
            'test/cli/**',
            ...pure,
          ],
        },
      },
      {
        // Per-user rate limits on, as a deployment sets them (each test is a new user).
        plugins: [
          withUpstream({ RATE_LIMIT_REQUESTS: '8', RATE_LIMIT_TURNS: '3', TOKEN_QUOTA_DAILY: '400', MAX_QUEUED_TURNS: '2' }),
        ],
        test: { ...workers, name: 'limits', include: ['test/limits/**/*.test.ts'] },
      },
      {
        // A model configured, but MODEL_CONTEXT_TOKENS not a JSON object of positive integers.
        plugins: [withUpstream({ MODEL_CONTEXT_TOKENS: '{"echo": "lots"}' })],
        test: { ...workers, name: 'misconfigured', include: ['test/misconfigured/**/*.test.ts'] },
      },
      {
        // The real client libraries (openai, the AI SDK) in Node against the real Worker, started
        // with wrangler's unstable_startWorker: what a user's app does.
        test: {
          name: 'clients',
          environment: 'node',
          include: ['test/clients/**/*.test.ts'],
          globalSetup: ['test/served/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
      {
        // The inspector page in a real headless Chromium (Debian's, driven by playwright-core)
        // against the same served Worker; skipped, saying why, where there is no Chromium.
        test: {
          name: 'browser',
          environment: 'node',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: ['test/browser/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
      {
        // Sessions of any size: a minute or two of seeding, so a script of their own (`npm run test:large`).
        plugins: [withUpstream()],
        test: { ...workers, name: 'large', include: ['test/large/**/*.test.ts'], testTimeout: 600_000 },
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
