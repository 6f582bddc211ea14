import { describe, expect, it } from 'vitest'
import { directoryListing, fileSize, numbered } from './listing'
import { parentsOf, pathProblem, toolPath } from './paths'
import { maxFilesOf } from './settings'

describe('store paths', () => {
  it('take /memories/<segments> only: no empty segment, no . or .., no NUL, at most 256 characters', () => {
    expect(pathProblem('/memories/notes/a.md')).toBeNull()
    expect(pathProblem('/memories/a b/ünïcode ☕.md')).toBeNull()
    expect(pathProblem('/memories')).toContain('the /memories directory itself')
    expect(pathProblem('/memoriesx/a')).toBe('must start with /memories/')
    expect(pathProblem('/etc/passwd')).toBe('must start with /memories/')
    expect(pathProblem('/memories/a//b')).toBe('has an empty segment')
    expect(pathProblem('/memories/a/')).toBe('has an empty segment')
    expect(pathProblem('/memories/a/../b')).toBe('has a ".." segment')
    expect(pathProblem('/memories/./b')).toBe('has a "." segment')
    expect(pathProblem('/memories/a\0b')).toBe('holds a NUL character')
    expect(pathProblem(`/memories/${'x'.repeat(246)}`)).toBeNull()
    expect(pathProblem(`/memories/${'x'.repeat(247)}`)).toBe('is 257 characters long; at most 256')
  })

  it('know the directories a file is made in', () => {
    expect(parentsOf('/memories/a.md')).toEqual([])
    expect(parentsOf('/memories/a/b/c.md')).toEqual(['/memories/a', '/memories/a/b'])
  })
})

describe('tool paths, resolved as the SDK handler resolves them', () => {
  it('normalize within /memories (its own name included) and refuse what leaves it in the handler’s words', () => {
    expect(toolPath('/memories')).toEqual({ path: '/memories' })
    expect(toolPath('/memories/')).toEqual({ path: '/memories' })
    expect(toolPath('/memories//a/./b/../c.md/')).toEqual({ path: '/memories/a/c.md' })
    expect(toolPath('/memoriesfoo')).toEqual({ path: '/memories/foo' })
    expect(toolPath('/memories/../memories/a')).toEqual({ path: '/memories/a' })
    expect(toolPath('/memories/..')).toEqual({ error: 'Path /memories/.. would escape /memories directory' })
    expect(toolPath('/memories/../../x')).toEqual({ error: 'Path /memories/../../x would escape /memories directory' })
    expect(toolPath('/memories/../memoriesx/a')).toEqual({
      error: 'Path /memories/../memoriesx/a would escape /memories directory',
    })
    expect(toolPath('/etc/passwd')).toEqual({ error: 'Path must start with /memories, got: /etc/passwd' })
    expect(toolPath('memories/a')).toEqual({ error: 'Path must start with /memories, got: memories/a' })
  })

  it('hold the result to the store’s length and NUL rules', () => {
    expect(toolPath(`/memories/${'x'.repeat(247)}`)).toEqual({ error: expect.stringContaining('longer than 256 characters') })
    expect(toolPath(`/memories/a/../${'x'.repeat(246)}`)).toEqual({ path: `/memories/${'x'.repeat(246)}` })
    expect(toolPath('/memories/a\0')).toEqual({ error: 'Path /memories/a\0 holds a NUL character' })
  })
})

describe('the handler’s texts', () => {
  it('sizes: bytes, then K, M, G with one decimal when not whole', () => {
    expect([0, 1, 512, 1023, 1024, 1536, 1100, 4096, 1024 * 1024 * 3].map(fileSize)).toEqual([
      '0B',
      '1B',
      '512B',
      '1023B',
      '1K',
      '1.5K',
      '1.1K',
      '4K',
      '3M',
    ])
  })

  it('numbered lines: six columns, a tab', () => {
    expect(numbered(['a', 'b'], 9)).toBe('     9\ta\n    10\tb')
  })

  it('a listing: two levels, sorted, a directory then what is in it, hidden names and node_modules left out', () => {
    const listing = directoryListing('/memories', '/memories', {
      files: [
        { path: '/memories/b.md', size: 2000 },
        { path: '/memories/A.md', size: 5 },
        { path: '/memories/d/x.md', size: 1 },
        { path: '/memories/d/e/deep.md', size: 1 },
        { path: '/memories/.hidden', size: 1 },
        { path: '/memories/node_modules/m.js', size: 1 },
      ],
      dirs: ['/memories/d', '/memories/d/e', '/memories/node_modules', '/memories/empty'],
    })
    expect(listing).toBe(
      [
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:",
        '4K\t/memories',
        '5B\t/memories/A.md',
        '2.0K\t/memories/b.md',
        '4K\t/memories/d/',
        '4K\t/memories/d/e/',
        '1B\t/memories/d/x.md',
        '4K\t/memories/empty/',
      ].join('\n'),
    )
  })
})

describe('MEMORY_MAX_FILES', () => {
  it('is 1,000 unless set, a whole number ≥ 1 when set, else a 503 naming it', () => {
    expect(maxFilesOf({})).toBe(1000)
    expect(maxFilesOf({ MEMORY_MAX_FILES: ' 25 ' })).toBe(25)
    for (const bad of ['0', '-1', 'lots', '1.5'])
      expect(() => maxFilesOf({ MEMORY_MAX_FILES: bad })).toThrow(expect.objectContaining({ code: 'not_configured' }))
  })
})
