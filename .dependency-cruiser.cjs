/**
 * The layers of src/ (docs/architecture.md): imports point down only, and nothing imports in a
 * circle. `npm run lint` checks it.
 *
 *   http → object → doors → turns → compaction → history, reads → models → store → webhooks → contract → core
 *
 * json-stream, log, sql and rate-limits are utilities any layer above the core may use.
 */
const layer = (name) => `^src/${name}/`
const above = (...names) => ({ path: `^src/(${names.join('|')})/` })

/** A layer and the layers above it, which it must not import. */
const ORDER = ['http', 'object', 'doors', 'turns', 'compaction', 'history', 'reads', 'models', 'store', 'webhooks', 'contract']
/** Rooms on one floor: neither imports the other. */
const SIDE_BY_SIDE = { history: ['reads'], reads: ['history'] }
const LAYERS = ORDER.slice(1).map((name, i) => [name, [...ORDER.slice(0, i + 1), ...(SIDE_BY_SIDE[name] ?? [])]])
LAYERS.find(([name]) => name === 'contract')[1].push('rate-limits')

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
