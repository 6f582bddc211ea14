// The bundle's stand-in for zod's locales index (wrangler.toml `[alias]`): the API answers in
// English only, and zod re-exports every locale from its entry in a way bundlers cannot drop.
export { default as en } from 'zod/v4/locales/en.js'
