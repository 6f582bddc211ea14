/**
 * Memory commands for the tests that hold the service against the SDK's own handler: a fixed
 * start that builds a small tree (nested and hidden entries, a file where a directory could be),
 * then commands drawn from a seeded generator, so a failure names a sequence that replays.
 */

export type MemoryCommand = { command: 'view' | 'create' | 'str_replace' | 'insert' | 'delete' | 'rename' } & Record<
  string,
  unknown
>

/** mulberry32: a small seeded generator (the same seed, the same commands). */
function generator(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!,
    chance: (p: number) => next() < p,
  }
}

const NAMES = ['a.md', 'b', 'notes', '.hidden', 'node_modules', 'x y.txt', 'a.md/inner']
const DIRS = ['', 'd', 'd/e', 'notes', 'd/e/f']
const LINES = ['tea', 'coffee', 'tea time', 'a', '', 'zest']
const OLD = ['tea', 'coffee', 'time', 'a', 'tea\ncoffee', 'zzz', 'zest']

const START: MemoryCommand[] = [
  { command: 'view', path: '/memories' },
  { command: 'create', path: '/memories/a.md', file_text: 'tea\ncoffee\n' },
  { command: 'create', path: '/memories/d/e/deep.md', file_text: 'zest' },
  { command: 'create', path: '/memories/.hidden/secret', file_text: 'x' },
  { command: 'create', path: '/memories/node_modules/m.js', file_text: '1' },
  { command: 'view', path: '/memories/' },
  { command: 'view', path: '/memories/a.md/inner' },
  { command: 'rename', old_path: '/memories/d', new_path: '/memories/d/e/moved' },
  { command: 'rename', old_path: '/memories/missing', new_path: '/memories/made/on/the/way' },
  { command: 'view', path: '/memories' },
  { command: 'str_replace', path: '/memories/a.md', old_str: 'coffee', new_str: 'cocoa and coffee' },
  { command: 'str_replace', path: '/memories/a.md', old_str: 'co', new_str: 'ko' },
  { command: 'insert', path: '/memories/a.md', insert_line: 1, insert_text: 'milk\n' },
  { command: 'insert', path: '/memories/a.md', insert_line: 0, insert_text: 'top' },
  { command: 'str_replace', path: '/memories/a.md', old_str: '', new_str: 'x' },
  { command: 'view', path: '/memories/a.md', view_range: [2, -1] },
  { command: 'rename', old_path: '/memories/a.md', new_path: '/memories/kept/a.md' },
  { command: 'delete', path: '/memories/d/e' },
  { command: 'view', path: '/memories/d' },
]

/** `count` commands after the fixed start, drawn from `seed`. */
export function randomCommands(seed: number, count: number): MemoryCommand[] {
  const random = generator(seed)
  // Half the paths name one written before, so that edits, views and renames mostly find something.
  const written = ['/memories/kept/a.md', '/memories/d', '/memories/made']
  const path = (): string => {
    if (random.chance(0.5)) return random.pick(written)
    if (random.chance(0.04)) return '/memories'
    if (random.chance(0.03)) return '/etc/passwd'
    const dir = random.pick(DIRS)
    let raw = `/memories${dir ? `/${dir}` : ''}/${random.pick(NAMES)}`
    if (random.chance(0.05)) raw = raw.replace('/memories/', '/memories//')
    if (random.chance(0.05)) raw = raw.replace('/memories/', '/memories/d/../')
    if (random.chance(0.04)) raw = raw.replace('/memories/', '/memories/../')
    if (random.chance(0.04)) raw = raw.replace('/memories/', '/memoriesq')
    if (random.chance(0.08)) raw += '/'
    return raw
  }
  const text = () => Array.from({ length: random.int(1, 4) }, () => random.pick(LINES)).join('\n')
  const commands = [...START]
  for (let i = 0; i < count; i++) {
    const kind = random.pick(['view', 'view', 'create', 'create', 'str_replace', 'insert', 'delete', 'rename', 'rename'] as const)
    switch (kind) {
      case 'view':
        commands.push({
          command: 'view',
          path: path(),
          ...(random.chance(0.3) ? { view_range: [random.int(-1, 4), random.int(-1, 5)] } : {}),
        })
        break
      case 'create': {
        const made = path()
        written.push(made)
        commands.push({ command: 'create', path: made, file_text: text() })
        break
      }
      case 'str_replace':
        commands.push({ command: 'str_replace', path: path(), old_str: random.pick(OLD), new_str: random.pick(LINES) })
        break
      case 'insert':
        commands.push({ command: 'insert', path: path(), insert_line: random.int(-1, 5), insert_text: `${text()}\n` })
        break
      case 'delete':
        commands.push({ command: 'delete', path: path() })
        break
      case 'rename': {
        const to = path()
        written.push(to)
        commands.push({ command: 'rename', old_path: path(), new_path: to })
      }
    }
  }
  return commands
}
