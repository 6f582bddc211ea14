import { describe, expect, it } from 'vitest'
import { documentTokens, imageTokens, PDF_PAGE_TOKENS } from './tokens'

describe('imageTokens by Anthropic’s rule', () => {
  it('matches the worked examples of Anthropic’s vision page (width × height / 750)', () => {
    expect(imageTokens({ width: 200, height: 200 }, 'anthropic')).toBe(54)
    expect(imageTokens({ width: 1000, height: 1000 }, 'anthropic')).toBe(1334)
    expect(imageTokens({ width: 1092, height: 1092 }, 'anthropic')).toBe(1590)
  })

  it('scales a large image down to ~1,600 tokens first', () => {
    // 4000×3000: scale √(1,200,000 / 12,000,000) = 0.3162 → 1264×948 = 1,198,272 px → 1597.7 → 1598.
    expect(imageTokens({ width: 4000, height: 3000 }, 'anthropic')).toBe(1598)
    expect(imageTokens({ width: 3000, height: 4000 }, 'anthropic')).toBe(1598)
    // Far beyond: still no more than 1,600.
    expect(imageTokens({ width: 20_000, height: 20_000 }, 'anthropic')).toBeLessThanOrEqual(1600)
    expect(imageTokens({ width: 20_000, height: 20_000 }, 'anthropic')).toBeGreaterThan(1590)
  })

  it('scales a long image to a 1568-px long edge', () => {
    // 3000×100: scale 1568 / 3000 → 1568×52 = 81,536 px → 108.7 → 109.
    expect(imageTokens({ width: 3000, height: 100 }, 'anthropic')).toBe(109)
  })

  it('ignores detail, and counts an image of unknown size as the most it can cost', () => {
    expect(imageTokens({ width: 1000, height: 1000 }, 'anthropic', 'low')).toBe(1334)
    expect(imageTokens(null, 'anthropic')).toBe(1600)
    expect(imageTokens({ width: 0, height: 10 }, 'anthropic')).toBe(1600)
    expect(imageTokens({ width: Number.NaN, height: 10 }, 'anthropic')).toBe(1600)
  })

  it('costs at least one token for the smallest image', () => {
    expect(imageTokens({ width: 1, height: 1 }, 'anthropic')).toBe(1)
    expect(imageTokens({ width: 100_000, height: 1 }, 'anthropic')).toBe(3) // 1568×1 → 2.09 → 3
  })
})

describe('imageTokens by OpenAI’s rule', () => {
  it('matches the worked examples of OpenAI’s vision guide', () => {
    expect(imageTokens({ width: 1024, height: 1024 }, 'openai', 'high')).toBe(765)
    expect(imageTokens({ width: 2048, height: 4096 }, 'openai', 'high')).toBe(1105)
    expect(imageTokens({ width: 4096, height: 8192 }, 'openai', 'low')).toBe(85)
  })

  it('counts auto as high', () => {
    expect(imageTokens({ width: 1024, height: 1024 }, 'openai', 'auto')).toBe(765)
    expect(imageTokens({ width: 1024, height: 1024 }, 'openai')).toBe(765)
  })

  it('does not scale a small image up: tiles cover it as it is', () => {
    expect(imageTokens({ width: 500, height: 500 }, 'openai', 'high')).toBe(255) // 1 tile
    expect(imageTokens({ width: 513, height: 500 }, 'openai', 'high')).toBe(425) // 2 tiles
    expect(imageTokens({ width: 768, height: 768 }, 'openai', 'high')).toBe(765) // 4 tiles, no scaling
  })

  it('fits a wide image in 2048 before bringing its short side to 768', () => {
    // 4000×1000 → 2048×512 (fit); short side 512 < 768, kept → 4 × 1 tiles → 765.
    expect(imageTokens({ width: 4000, height: 1000 }, 'openai', 'high')).toBe(765)
    // 1920×1080 → short side to 768: 1365×768 → 3 × 2 tiles → 1105.
    expect(imageTokens({ width: 1920, height: 1080 }, 'openai', 'high')).toBe(1105)
  })

  it('counts an image of unknown size as the most it can cost (8 tiles), or 85 at low detail', () => {
    expect(imageTokens(null, 'openai', 'high')).toBe(1445)
    expect(imageTokens(null, 'openai', 'low')).toBe(85)
  })
})

describe('documentTokens', () => {
  it(`counts a PDF at ${PDF_PAGE_TOKENS} tokens a page, Anthropic's documented upper figure`, () => {
    expect(PDF_PAGE_TOKENS).toBe(3000)
    expect(documentTokens({ pages: 12 })).toBe(36_000)
    expect(documentTokens({ pages: 1 })).toBe(3000)
  })

  it('counts a PDF of unknown or impossible page count as one page', () => {
    expect(documentTokens({})).toBe(3000)
    expect(documentTokens({ pages: 0 })).toBe(3000)
    expect(documentTokens({ pages: 2.5 })).toBe(3000)
  })

  it('counts text/plain with the estimator it is given', () => {
    const words = (text: string) => text.split(/\s+/).filter(Boolean).length
    expect(documentTokens({ text: 'one two three four' }, words)).toBe(4)
    expect(documentTokens({ text: '' }, words)).toBe(0)
  })
})
