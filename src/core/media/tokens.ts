import type { ImageSize } from './image-size'

/**
 * Token estimates for images and documents, by the rules the providers publish. They are
 * estimates like the text ones (calibration corrects them the same way); where a rule leaves a
 * choice, the choice errs high, since an estimate too low sends a prompt over the window.
 */

/** Whose published rule an image is counted by. */
export type ImageTokenRule = 'anthropic' | 'openai'
/** OpenAI's `detail` of an image part; Anthropic's rule has none. */
export type ImageDetail = 'low' | 'high' | 'auto'

/**
 * Anthropic, "Vision" (https://docs.anthropic.com/en/docs/build-with-claude/vision, "Evaluate
 * image size" and "Calculate image costs"): an image whose long edge is over 1568 px, or that is
 * over ~1,600 tokens, is first scaled down, keeping its aspect ratio, until it is within both;
 * then `tokens = (width px * height px) / 750`. Its table: 200×200 ≈ 54, 1000×1000 ≈ 1334,
 * 1092×1092 (1.19 MP, the largest square not resized) ≈ 1590. The token limit is taken as
 * exactly 1,600, i.e. 1,200,000 px (the page's "1.15 megapixels" is a latency recommendation,
 * and its own 1092×1092 example is larger).
 *
 * Later versions of that page count 28×28-px patches instead (⌈w/28⌉ × ⌈h/28⌉, at most 1,568;
 * up to 4,784 on models with a high-resolution tier). The round-four spec names the /750 rule,
 * which is what this follows; the two agree within a few percent below the cap.
 */
const ANTHROPIC = { longEdge: 1568, maxPixels: 1600 * 750, pixelsPerToken: 750 } as const

/**
 * OpenAI, "Vision", calculating costs (https://platform.openai.com/docs/guides/vision/calculating-costs,
 * GPT-4o-class models): `detail: low` costs 85 tokens whatever the size; `high` (and `auto`,
 * counted as high: the model may choose it) scales the image to fit within 2048×2048, then so
 * that its shortest side is 768 px, and costs 170 tokens for each 512-px tile covering it plus 85.
 * Its examples: 1024×1024 high = 765; 2048×4096 high = 1105; 4096×8192 low = 85. The guide does
 * not say whether a smaller image is scaled up to 768: it is not, as measured usage shows (a
 * 128×64 image at high on gpt-4o: 267 input tokens with a five-word prompt, i.e. one tile, 255;
 * https://community.openai.com/t/1262691).
 */
const OPENAI = { base: 85, perTile: 170, tile: 512, fitWithin: 2048, shortSide: 768 } as const
/** The most tiles an image can need after the two scalings: 768×2048 is 2 × 4. */
const OPENAI_MAX_TILES = 8

/**
 * Anthropic, "PDF support" (https://docs.anthropic.com/en/docs/build-with-claude/pdf-support,
 * "Estimate your costs"): each page's text "typically uses 1,500-3,000 tokens per page depending
 * on content density", and each page is also an image counted by the vision rule. The top of the
 * documented text range is taken as the whole page's figure: above typical text, and close to
 * what a text page with its image measures in practice.
 */
export const PDF_PAGE_TOKENS = 3000

/**
 * The tokens an image costs under a provider's rule. An image of unknown size (an `https:` URL
 * never fetched, a header that could not be read) counts as the most the rule can charge.
 *
 * @example
 * imageTokens({ width: 1092, height: 1092 }, 'anthropic') // 1590
 * imageTokens({ width: 1024, height: 1024 }, 'openai', 'high') // 765
 * imageTokens({ width: 4096, height: 8192 }, 'openai', 'low') // 85
 * imageTokens(null, 'anthropic') // 1600
 */
export function imageTokens(size: ImageSize | null, rule: ImageTokenRule, detail: ImageDetail = 'auto'): number {
  if (rule === 'openai' && detail === 'low') return OPENAI.base
  const known = size && isSide(size.width) && isSide(size.height) ? size : null
  if (rule === 'anthropic') return known ? anthropicTokens(known) : ANTHROPIC.maxPixels / ANTHROPIC.pixelsPerToken
  return (known ? openAiTiles(known) : OPENAI_MAX_TILES) * OPENAI.perTile + OPENAI.base
}

const isSide = (n: number) => Number.isFinite(n) && n >= 1

function anthropicTokens({ width, height }: ImageSize): number {
  const scale = Math.min(1, ANTHROPIC.longEdge / Math.max(width, height), Math.sqrt(ANTHROPIC.maxPixels / (width * height)))
  const w = Math.max(1, Math.floor(width * scale))
  const h = Math.max(1, Math.floor(height * scale))
  return Math.ceil((w * h) / ANTHROPIC.pixelsPerToken)
}

/** The 512-px tiles covering an image once fitted in 2048×2048 and its shortest side brought down to 768. */
function openAiTiles({ width, height }: ImageSize): number {
  let w = width
  let h = height
  const long = Math.max(w, h)
  if (long > OPENAI.fitWithin) {
    w = Math.max(1, Math.floor((w * OPENAI.fitWithin) / long))
    h = Math.max(1, Math.floor((h * OPENAI.fitWithin) / long))
  }
  const short = Math.min(w, h)
  if (short > OPENAI.shortSide) {
    w = Math.floor((w * OPENAI.shortSide) / short)
    h = Math.floor((h * OPENAI.shortSide) / short)
  }
  return Math.ceil(w / OPENAI.tile) * Math.ceil(h / OPENAI.tile)
}

/**
 * The tokens a document costs: a PDF by its pages at {@link PDF_PAGE_TOKENS} each (an unknown or
 * impossible count as one page: a PDF has at least one), a text/plain document by its text with
 * the estimator given.
 *
 * @example
 * documentTokens({ pages: 12 }) // 36000
 * documentTokens({ text: 'hello world' }, defaultEstimator.count) // 2
 */
export function documentTokens(document: { pages?: number }): number
export function documentTokens(document: { text: string }, countText: (text: string) => number): number
export function documentTokens(document: { pages?: number } | { text: string }, countText?: (text: string) => number): number {
  if ('text' in document) {
    if (!countText) throw new TypeError('documentTokens: a text document needs an estimator to count its text')
    return countText(document.text)
  }
  const pages = document.pages
  return (pages !== undefined && Number.isSafeInteger(pages) && pages >= 1 ? pages : 1) * PDF_PAGE_TOKENS
}
