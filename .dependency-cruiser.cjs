/**
 * The layers of src/ (README, "How it works"): imports point down only, and nothing imports in a
 * circle. `npm run lint` checks it.
 *
 *   http → object → doors → turns → compaction → models → store → contract → core
 *
 * webhooks (the signed sender) sits beside models: an outbound adapter the objects use.
 *
 * json-stream, log and rate-limits are utilities any layer above the core may use.
 */
const layer = (name) => `^src/${name}/`
const above = (...names) => ({ path: `^src/(${names.join('|')})/` })

/** A layer and the layers above it, which it must not import. */
const LAYERS = [
  ['object', ['http']],
  ['doors', ['http', 'object']],
  ['turns', ['http', 'object', 'doors']],
  ['compaction', ['http', 'object', 'doors', 'turns']],
  ['models', ['http', 'object', 'doors', 'turns', 'compaction']],
  ['webhooks', ['http', 'object', 'doors', 'turns', 'compaction', 'models']],
  ['store', ['http', 'object', 'doors', 'turns', 'compaction', 'models', 'webhooks']],
  ['contract', ['http', 'object', 'doors', 'turns', 'compaction', 'models', 'store', 'rate-limits', 'webhooks']],
]

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: two modules that each need the other are one concept, or one of them is in the wrong place.',
      from: {},
      to: { circular: true },
    },
    ...LAYERS.map(([name, higher]) => ({
      name: `${name}-imports-down`,
      severity: 'error',
      comment: `src/${name} imports from a layer above it (${higher.join(', ')}).`,
      from: { path: layer(name), pathNot: '\\.test\\.ts$' },
      to: above(...higher),
    })),
    {
      name: 'core-is-pure',
      severity: 'error',
      comment: 'src/core is the pure domain: it imports only itself and the tokenizer, no Workers, Hono or fetch.',
      from: { path: layer('core'), pathNot: '\\.test\\.ts$' },
      to: { pathNot: ['^src/core/', 'gpt-tokenizer'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '\\.test\\.ts$' },
  },
}
