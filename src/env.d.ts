/**
 * Worker variables and secrets that are not declared in wrangler.toml (so not in the generated
 * worker-configuration.d.ts): all optional, read by the names the HTTP contract fixes.
 */
interface AppVariables {
  JWT_SECRET?: string
  JWT_ISSUER?: string
  JWT_AUDIENCE?: string
}
interface Env extends AppVariables {}
declare namespace Cloudflare {
  interface Env extends AppVariables {}
}
