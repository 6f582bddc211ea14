/**
 * Worker variables and secrets that are not declared in wrangler.toml (so not in the generated
 * worker-configuration.d.ts): all optional, read by the names the HTTP contract fixes.
 */
interface AppVariables {
  JWT_SECRET?: string
  JWT_ISSUER?: string
  JWT_AUDIENCE?: string
  /** An identity provider's JSON Web Key Set (https; http only for localhost). */
  JWT_JWKS_URL?: string
  /** Algorithms allowed for keys of the set (default `RS256,ES256`). */
  JWT_ALGORITHMS?: string
  /** The header carrying every token (default `Authorization`, with `Bearer `). */
  JWT_HEADER?: string
  /** The claim naming the user (default `sub`). */
  JWT_USER_CLAIM?: string
  /** An OpenAI-compatible upstream (`POST {OPENAI_BASE_URL}/chat/completions`). */
  OPENAI_BASE_URL?: string
  OPENAI_API_KEY?: string
  /** A native Anthropic upstream (a secret); models named `claude…` go there. */
  ANTHROPIC_API_KEY?: string
  /** Its base URL, without `/v1` (default `https://api.anthropic.com`). */
  ANTHROPIC_BASE_URL?: string
  // AI, the Workers AI binding, comes from the `ai` environment in wrangler.toml.
  /** The model turns call, unless a request names one (also set by the `ai` environment). */
  CHAT_MODEL?: string
  SUMMARY_MODEL?: string
  /** The chat model's context budget for a prompt, in tokens. */
  CHAT_CONTEXT_TOKENS?: string
  /** JSON `{ "<model>": tokens }`: context windows per model, overriding CHAT_CONTEXT_TOKENS for that model. */
  MODEL_CONTEXT_TOKENS?: string
  /** `max_tokens` for replies and for summaries. */
  CHAT_MAX_TOKENS?: string
  SUMMARY_MAX_TOKENS?: string
  /** `placeholder`: images and documents reach the model as their placeholder text (a model without vision); default `bytes`. */
  IMAGES_TO_MODEL?: string
  /** `session`: a model call whose request names no `prompt_cache_key` is sent one made from its session (OpenAI-wire upstreams). */
  PROMPT_CACHE_KEY?: string
  /** Time allowed for a model to start answering, and between two streamed chunks. */
  MODEL_TIMEOUT_MS?: string
  /** Requests per user per minute (default 600; 0 = off). */
  RATE_LIMIT_REQUESTS?: string
  /** Model turns per user per minute (default 60; 0 = off). */
  RATE_LIMIT_TURNS?: string
  /** Provider-reported tokens per user per UTC day (default 0 = off). */
  TOKEN_QUOTA_DAILY?: string
  /** Turns waiting on one session behind the running one (default 8; 0 = no limit). */
  MAX_QUEUED_TURNS?: string
  /** JSON `{ "trigger", "strategy" }`: the deployment's default policy for turns. */
  COMPACTION_POLICY?: string
  /** Where a policy's pass runs when the policy does not say: `doors` (default: after the answer for the doors, in the turn for /turns), `always` or `never`. */
  COMPACTION_BACKGROUND?: string
  /** Web origins that may call the API (comma-separated, or `*`; default none). */
  CORS_ORIGINS?: string
  /** What a door does with a history that left the session's (`rewind`, the default, or `reject`: 409). */
  ON_DIVERGE?: string
  /** How long a session the Responses door named for a request lives after its last write (seconds; 0: never; default 30 days). */
  RESPONSES_IMPLICIT_TTL_SECONDS?: string
  /** A session expires this long after its last append unless created with its own idleTtlSeconds (seconds; 0 or unset: off). */
  SESSION_IDLE_TTL_SECONDS?: string
  /** How long a webhook receiver has to answer one attempt (ms; default 15000). */
  WEBHOOK_TIMEOUT_MS?: string
  /** `1`: MCP offers the tools that change a session (pin_events, compact_session, fork_session) beside the read tools. */
  MCP_WRITE_TOOLS?: string
  /** Memory files a user may have (default 1000). */
  MEMORY_MAX_FILES?: string
  /** Whether sessions hand their events to their user's search across sessions (`on`, the default, or `off`). */
  SEARCH_ACROSS_SESSIONS?: string
  /** How many search shards each user's sessions are spread over (1–64, default 4). */
  SEARCH_SHARD_COUNT?: string
}
interface Env extends AppVariables {}
declare namespace Cloudflare {
  interface Env extends AppVariables {}
}
