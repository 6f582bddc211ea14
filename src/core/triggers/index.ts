import { formatProblem, isPositiveInteger, type Problem } from '../problem'

/**
 * Triggers decide whether a compaction pass runs. They are plain data, the same shape the HTTP
 * API takes, so a policy can be stored and sent as JSON.
 */
export type Trigger =
  | { turnCount: number }
  | { tokenCount: number }
  | { contextFraction: number }
  | { anyOf: Trigger[] }
  | { allOf: Trigger[] }
  | { always: true }

/** What a trigger looks at. */
export interface TriggerInput {
  turns: number
  tokens: number
  /** The model a pass fits the view for: needed by `contextFraction` only. */
  model?: ModelFit
}

/**
 * The model a pass fits a view for: its prompt budget (context − reply tokens), and the session's
 * calibration ratio (what the model counts ÷ what we estimate; 1 before any report).
 */
export interface ModelFit {
  promptBudget: number
  ratio: number
}

/** A view's estimated tokens as the model would count them. */
export const calibrated = (tokens: number, model: ModelFit) => tokens * model.ratio

/** Nesting and width limits, so a hostile policy cannot make evaluation expensive. */
export const TRIGGER_LIMITS = { depth: 8, items: 16 } as const

/** What a trigger or window kind takes as its value. */
export type KindValue = 'positiveInteger' | 'fraction' | 'triggers' | 'true'

/** A fraction of the model's prompt budget: 0 < f ≤ 1. */
export const isFraction = (f: unknown): f is number => typeof f === 'number' && Number.isFinite(f) && f > 0 && f <= 1

/**
 * Every trigger kind, the value it takes and what it means: the one definition that validation
 * (below) and the API's document (the HTTP schemas) are built from.
 */
export const TRIGGER_KINDS = {
  turnCount: { value: 'positiveInteger', means: 'fires when the view has more than n turns' },
  tokenCount: { value: 'positiveInteger', means: 'fires when the view has at least n tokens' },
  contextFraction: {
    value: 'fraction',
    means: "fires when the view's calibrated tokens reach f (0 < f ≤ 1) of the model's prompt budget",
  },
  anyOf: { value: 'triggers', means: 'fires when any of the triggers fires' },
  allOf: { value: 'triggers', means: 'fires when all of the triggers fire' },
  always: { value: 'true', means: 'always fires' },
} as const satisfies Record<string, { value: KindValue; means: string }>

/**
 * Builds triggers, checking their arguments.
 *
 * @example
 * triggers.anyOf(triggers.turnCount(20), triggers.tokenCount(8000))
 */
export const triggers = {
  /** Fires when the view has more than `n` turns. */
  turnCount: (n: number): Trigger => checked({ turnCount: n }),
  /** Fires when the view has at least `t` tokens. */
  tokenCount: (t: number): Trigger => checked({ tokenCount: t }),
  /** Fires when the view's calibrated tokens reach `f` of the model's prompt budget. */
  contextFraction: (f: number): Trigger => checked({ contextFraction: f }),
  anyOf: (...all: Trigger[]): Trigger => checked({ anyOf: all }),
  allOf: (...all: Trigger[]): Trigger => checked({ allOf: all }),
  always: (): Trigger => ({ always: true }),
}

const checked = (trigger: Trigger): Trigger => {
  const problem = triggerProblem(trigger)
  if (problem) throw new RangeError(formatProblem('trigger', problem))
  return trigger
}

/**
 * Says what is wrong with a trigger given as data — where (a path inside it) and why — or
 * returns null when it is valid.
 *
 * @example
 * triggerProblem({ anyOf: [{ turnCount: 0 }] })
 * // { path: ['anyOf', 0, 'turnCount'], message: 'must be an integer ≥ 1' }
 */
export function triggerProblem(trigger: unknown, depth = 1): Problem | null {
  if (depth > TRIGGER_LIMITS.depth) return { path: [], message: `nested deeper than ${TRIGGER_LIMITS.depth} levels` }
  if (typeof trigger !== 'object' || trigger === null || Array.isArray(trigger)) return { path: [], message: 'must be an object' }
  const keys = Object.keys(trigger)
  const names = Object.keys(TRIGGER_KINDS).join(', ')
  if (keys.length !== 1) return { path: [], message: `must have exactly one of ${names}` }
  const key = keys[0]!
  if (!Object.hasOwn(TRIGGER_KINDS, key)) return { path: [], message: `unknown trigger "${key}"` }
  const value = (trigger as Record<string, unknown>)[key]
  switch (TRIGGER_KINDS[key as keyof typeof TRIGGER_KINDS].value) {
    case 'positiveInteger':
      return isPositiveInteger(value) ? null : { path: [key], message: 'must be an integer ≥ 1' }
    case 'fraction':
      return isFraction(value) ? null : { path: [key], message: 'must be a number with 0 < f ≤ 1' }
    case 'true':
      return value === true ? null : { path: [key], message: 'must be true' }
    case 'triggers': {
      if (!Array.isArray(value) || value.length === 0 || value.length > TRIGGER_LIMITS.items) {
        return { path: [key], message: `must be a list of 1 to ${TRIGGER_LIMITS.items} triggers` }
      }
      for (let i = 0; i < value.length; i++) {
        const problem = triggerProblem(value[i], depth + 1)
        if (problem) return { path: [key, i, ...problem.path], message: problem.message }
      }
      return null
    }
  }
}

/**
 * Evaluates a trigger against a view's turn count and tokens.
 *
 * @example
 * fires({ turnCount: 2 }, { turns: 3, tokens: 0 }) // true: 3 > 2
 */
export function fires(trigger: Trigger, input: TriggerInput): boolean {
  if ('turnCount' in trigger) return input.turns > trigger.turnCount
  if ('tokenCount' in trigger) return input.tokens >= trigger.tokenCount
  if ('contextFraction' in trigger) {
    if (!input.model) throw new RangeError('a contextFraction trigger needs the model a pass fits for')
    return calibrated(input.tokens, input.model) >= trigger.contextFraction * input.model.promptBudget
  }
  if ('anyOf' in trigger) return trigger.anyOf.some((t) => fires(t, input))
  if ('allOf' in trigger) return trigger.allOf.every((t) => fires(t, input))
  return true
}
