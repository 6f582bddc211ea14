/**
 * The layers of src/ (docs/architecture.md): imports point down only, and nothing imports in a
 * circle. `npm run lint` checks it.
 *
 *   http → wire, object → doors → turns → compaction → history, reads → models → store → webhooks → contract → core
 *
 * wire (the doors' translators, run in the Worker) and object (the Durable Objects) stand side by side.
 *
 * json-stream, log, sql and rate-limits are utilities any layer above the core may use; so is the
 * memory room (src/memory), used through its index.ts.
 */
const layer = (name) => `^src/${name}/`
const above = (...names) => ({ path: `^src/(${names.join('|')})/` })

/** A layer and the layers above it, which it must not import. */
const ORDER = [
  'http',
  'wire',
  'object',
  'doors',
  'turns',
  'compaction',
  'history',
  'reads',
  'models',
  'store',
  'webhooks',
  'contract',
]
/** Rooms on one floor: neither imports the other. */
const SIDE_BY_SIDE = { history: ['reads'], reads: ['history'], wire: ['object'] }
const LAYERS = ORDER.slice(1).map((name, i) => [name, [...ORDER.slice(0, i + 1), ...(SIDE_BY_SIDE[name] ?? [])]])
LAYERS.find(([name]) => name === 'contract')[1].push('rate-limits', 'memory')

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
    ...['webhooks', 'rate-limits', 'memory'].map((room) => ({
      name: `${room}-through-its-surface`,
      severity: 'error',
      comment: `src/${room} is a feature room: the rest of src/ uses what its index.ts exports, nothing inside it.`,
      from: { path: '^src/', pathNot: [`^src/${room}/`, '\\.test\\.ts$'] },
      to: { path: `^src/${room}/`, pathNot: `^src/${room}/index\\.ts$` },
    })),
    {
      name: 'feature-rooms-stand-low',
      severity: 'error',
      comment:
        'webhooks, rate-limits and memory hold their rules and tables: they use the contract, the core and the utilities, nothing above.',
      from: { path: '^src/(webhooks|rate-limits|memory)/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/(webhooks|rate-limits|memory|contract|core|sql|log|json-stream)/'] },
    },
    {
      name: 'log-knows-no-search',
      severity: 'error',
      comment:
        'store/search reads the log it indexes; the log is told of nothing above it (its index comes through an interface).',
      from: { path: '^src/store/log/', pathNot: '\\.test\\.ts$' },
      to: { path: ['^src/store/search/', '^src/store/session-storage\\.ts$'] },
    },
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
