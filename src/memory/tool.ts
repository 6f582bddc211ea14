import type { ToolInput } from '../contract/schemas'
import { MEMORY_TOOL } from '../core'

/**
 * The instruction Anthropic's API adds to the system prompt when a request offers its memory tool
 * (its memory-tool documentation, "Prompting guidance"), word for word: the service adds it once,
 * after the request's own system prompt, whenever it offers the tool, whatever the upstream.
 */
export const MEMORY_INSTRUCTION = `IMPORTANT: ALWAYS VIEW YOUR MEMORY DIRECTORY BEFORE DOING ANYTHING ELSE.
MEMORY PROTOCOL:
1. Use the \`view\` command of your \`memory\` tool to check for earlier progress.
2. ... (work on the task) ...
     - As you make progress, record status / progress / thoughts etc in your memory.
ASSUME INTERRUPTION: Your context window might be reset at any moment, so you risk losing any progress that is not recorded in your memory directory.`

/**
 * A system prompt with the memory instruction after it (the instruction alone when there is none).
 *
 * @example
 * withMemoryInstruction('You are terse.') // 'You are terse.\n\nIMPORTANT: ALWAYS VIEW YOUR MEMORY DIRECTORY …'
 */
export const withMemoryInstruction = (system: string | null): string =>
  system ? `${system}\n\n${MEMORY_INSTRUCTION}` : MEMORY_INSTRUCTION

/**
 * The memory tool as a function tool: Anthropic's `memory_20250818` commands in one JSON Schema
 * (a `command` and the fields each command takes), offered to every upstream under the name
 * `memory` — the Messages door's `memory_20250818`, `/turns`' `memory: true` and the other doors'
 * `X-Memory: on` alike.
 */
export const MEMORY_DEFINITION: ToolInput = {
  type: 'function',
  function: {
    name: MEMORY_TOOL,
    description:
      'Your memory: a directory of text files, /memories, kept across conversations. Look at it before anything else, and record what you learn as you go. Commands: view (a directory, or a file with line numbers), create (a new file), str_replace (replace text that occurs once), insert (text after a line), delete, rename.',
    parameters: {
      type: 'object',
      properties: {
        command: {
          type: 'string',
          enum: ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'],
          description: 'What to do.',
        },
        path: {
          type: 'string',
          description: 'The file or directory, starting with /memories (view, create, str_replace, insert, delete).',
        },
        view_range: {
          type: 'array',
          items: { type: 'integer' },
          minItems: 2,
          maxItems: 2,
          description: 'view of a file: the first and last line to show (1-based; -1 as the last: to the end).',
        },
        file_text: { type: 'string', description: 'create: the new file’s text.' },
        old_str: { type: 'string', description: 'str_replace: the text to replace; it must occur in exactly one line.' },
        new_str: { type: 'string', description: 'str_replace: the text to put in its place.' },
        insert_line: { type: 'integer', minimum: 0, description: 'insert: the line after which the text goes (0: at the top).' },
        insert_text: { type: 'string', description: 'insert: the text to insert.' },
        old_path: { type: 'string', description: 'rename: the file or directory to move.' },
        new_path: { type: 'string', description: 'rename: where it goes (it must not exist).' },
      },
      required: ['command'],
    },
  },
}

/** What the memory tool adds to a prompt, as text to estimate: its definition and the instruction. */
export const MEMORY_PROMPT = `${JSON.stringify(MEMORY_DEFINITION)}\n${MEMORY_INSTRUCTION}`
