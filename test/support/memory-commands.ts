/**
 * Generated memory commands, as Anthropic's memory tool takes them (`view`, `create`,
 * `str_replace`, `insert`, `delete`, `rename`), for the fuzz tests of every way in to the store:
 * valid ones on the file `/memories/notes/keeper.md` (which the test writes), and hostile ones.
 */
import fc from 'fast-check'

/** The file the valid commands edit: a test writes it first. */
export const KEEPER = { path: '/memories/notes/keeper.md', content: 'Morag\nkept\nthe light\n' }

const junk = fc.jsonValue({ maxDepth: 2 })
/** Text of any kind: empty, NUL, a lone surrogate, long. */
export const fuzzText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', '🙂', 'x'.repeat(600)),
)
/** {@link fuzzText}, or now and then a value of another type. */
export const looseText = fc.oneof({ weight: 4, arbitrary: fuzzText }, { weight: 1, arbitrary: junk })

/** A path as a command names it: under /memories or not, traversing, empty segments, NUL, odd Unicode, too long. */
export const memoryPath = fc.oneof(
  fc.constantFrom(
    '/memories',
    '/memories/',
    KEEPER.path,
    '/memories/notes',
    '/memories/new.md',
    '/memories/../etc/passwd',
    '/memories/a//b.md',
    '/memories/./a.md',
    '/etc/passwd',
    'memories/a.md',
    '/memories/\u0000.md',
    '/memories/日本語/ノート.md',
    `/memories/${'x'.repeat(260)}`,
  ),
  fuzzText.map((t) => `/memories/${t}`),
  looseText,
)

/** A command the tool takes, its values in range (it may still be refused: a path taken, a text absent). */
export const validMemoryCommand = fc.oneof(
  fc.record({ command: fc.constant('view'), path: fc.constantFrom('/memories', KEEPER.path, '/memories/notes') }),
  fc.record({ command: fc.constant('create'), path: memoryPath, file_text: fuzzText }),
  fc.record({
    command: fc.constant('str_replace'),
    path: fc.constant(KEEPER.path),
    old_str: fc.constantFrom('Morag', 'kept', 'x'),
    new_str: fuzzText,
  }),
  fc.record({
    command: fc.constant('insert'),
    path: fc.constant(KEEPER.path),
    insert_line: fc.integer({ min: 0, max: 6 }),
    insert_text: fuzzText,
  }),
  fc.record({ command: fc.constant('rename'), old_path: memoryPath, new_path: memoryPath }),
  fc.record({ command: fc.constant('delete'), path: memoryPath }),
)

/** A command's fields, each valid or not, any of them missing, or an unknown command. */
export const hostileMemoryCommand = fc.record(
  {
    command: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('view', 'create', 'str_replace', 'insert', 'delete', 'rename') },
      { weight: 1, arbitrary: looseText },
    ),
    path: memoryPath,
    view_range: fc.oneof(fc.tuple(fc.integer({ min: -3, max: 9 }), fc.integer({ min: -3, max: 9 })), junk),
    file_text: looseText,
    old_str: fc.oneof(fc.constantFrom('Morag', 'kept', '\n', ''), looseText),
    new_str: looseText,
    insert_line: fc.oneof(fc.integer({ min: -2, max: 9 }), junk),
    insert_text: looseText,
    old_path: memoryPath,
    new_path: memoryPath,
  },
  { requiredKeys: [] },
)
