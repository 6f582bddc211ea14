/**
 * Tool ids on the Anthropic wire: the Anthropic upstream is sent prompts with them, and the
 * Messages door shows its clients calls with them; the log keeps the originals.
 */

/** Anthropic's rule for tool ids. */
const TOOL_ID = /^[A-Za-z0-9_-]{1,64}$/

/** 32-bit FNV-1a of a text, as 8 hex digits. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return (hash >>> 0).toString(16).padStart(8, '0')
}

/**
 * A tool id as Anthropic takes it: itself when it matches `[A-Za-z0-9_-]{1,64}`, else the same
 * characters made safe with a hash of the original (the same id always gives the same result, so
 * a call and its result still pair).
 */
export const anthropicToolId = (id: string): string =>
  TOOL_ID.test(id) ? id : `${id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 55)}_${fnv1a(id)}`
