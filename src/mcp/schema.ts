import type { z } from 'zod'

const made = new Map<string, z.ZodType>()

/**
 * A tool's or a prompt's input schema, made once per isolate, its JSON Schema converted once. The
 * server is made anew for every request (stateless), and the SDK would otherwise build each
 * schema, and convert it on every `tools/list`, each time: most of a request's cost.
 *
 * @example
 * inputSchema: schemaOnce('get_context', () => z.object({ sessionId: z.string() }))
 */
export function schemaOnce<T extends z.ZodType>(name: string, make: () => T): T {
  const found = made.get(name)
  if (found) return found as T
  const schema = make()
  const standard = schema['~standard'] as z.ZodType['~standard'] & {
    jsonSchema: { input(options: unknown): unknown; output(options: unknown): unknown }
  }
  const converted: { input?: unknown; output?: unknown } = {}
  const jsonSchema = {
    input: (options: unknown) => (converted.input ??= standard.jsonSchema.input(options)),
    output: (options: unknown) => (converted.output ??= standard.jsonSchema.output(options)),
  }
  // The schema itself (its parsing), seen through a `~standard` whose JSON Schema is kept.
  const once = Object.create(schema, { '~standard': { value: { ...standard, jsonSchema } } }) as T
  made.set(name, once)
  return once
}
