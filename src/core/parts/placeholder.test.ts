import { describe, expect, it } from 'vitest'
import { partPlaceholder } from './placeholder'

describe('partPlaceholder', () => {
  it('names a stored part as its blob’s placeholder, one known by its URL by the URL', () => {
    const blob = `sha256:1a2b3c4d${'0'.repeat(56)}`
    expect(partPlaceholder({ type: 'image', mediaType: 'image/png', blob, bytes: 186_000, width: 1280, height: 720 })).toBe(
      '[image: image/png, 1280×720, 182 KB, sha256:1a2b3c4d]',
    )
    expect(partPlaceholder({ type: 'document', url: 'https://example.com/q3.pdf', title: 'Q3' })).toBe(
      '[document: https://example.com/q3.pdf]',
    )
  })
})
