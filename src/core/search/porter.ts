/**
 * The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980) as SQLite FTS5's
 * `porter` tokenizer applies it to a folded word: words shorter than 3 or longer than 64
 * characters are left alone. The index stems with FTS5's own; this one lets the code compare a
 * text's words with a query's the same way (marking a snippet's matches, telling two query words
 * of one stem apart from two stems). Words with letters outside a–z are left alone here (FTS5
 * would stem their ASCII endings; such a word is then compared exactly).
 */

const VOWELS = new Set(['a', 'e', 'i', 'o', 'u'])

/** Whether the letter at `i` is a consonant: not a vowel, and a `y` only at the start or after a vowel. */
function consonant(word: string, i: number): boolean {
  const c = word[i]!
  if (VOWELS.has(c)) return false
  if (c === 'y') return i === 0 || !consonant(word, i - 1)
  return true
}

/** The measure m of `word[0..n)`: how many vowel-consonant runs it has, as [C](VC)^m[V]. */
function measure(word: string, n: number): number {
  let m = 0
  let i = 0
  while (i < n && consonant(word, i)) i++
  for (;;) {
    while (i < n && !consonant(word, i)) i++
    if (i >= n) return m
    while (i < n && consonant(word, i)) i++
    m++
  }
}

/** Whether `word[0..n)` holds a vowel. */
function hasVowel(word: string, n: number): boolean {
  for (let i = 0; i < n; i++) if (!consonant(word, i)) return true
  return false
}

/** Whether `word[0..n)` ends consonant-vowel-consonant, the last not w, x or y (Porter's *o). */
function cvc(word: string, n: number): boolean {
  if (n < 3) return false
  const last = word[n - 1]!
  if (last === 'w' || last === 'x' || last === 'y') return false
  return consonant(word, n - 1) && !consonant(word, n - 2) && consonant(word, n - 3)
}

type Rule = [suffix: string, replacement: string]

/**
 * The first of `rules` whose suffix the word ends with, replaced when the stem before it passes
 * `condition`; the first suffix that matches decides, passed or not (as Porter's steps do).
 */
function replaceFirst(word: string, rules: readonly Rule[], condition: (stem: number) => boolean): string {
  for (const [suffix, replacement] of rules) {
    if (word.length > suffix.length && word.endsWith(suffix)) {
      const stem = word.length - suffix.length
      return condition(stem) ? word.slice(0, stem) + replacement : word
    }
  }
  return word
}

const STEP2: Rule[] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['logi', 'log'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
]

const STEP3: Rule[] = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
]

const STEP4 = [
  'al',
  'ance',
  'ence',
  'er',
  'ic',
  'able',
  'ible',
  'ant',
  'ement',
  'ment',
  'ent',
  'ion',
  'ou',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
]

/**
 * Rules of one step grouped by the suffix's next-to-last letter, each group longest first where
 * one suffix ends another (`ement` before `ment` before `ent`): FTS5 tries a group in that order.
 */
function grouped(rules: readonly Rule[]): Map<string, Rule[]> {
  const groups = new Map<string, Rule[]>()
  for (const rule of rules) {
    const key = rule[0].at(-2)!
    groups.set(key, [...(groups.get(key) ?? []), rule])
  }
  for (const group of groups.values()) group.sort((a, b) => b[0].length - a[0].length)
  return groups
}

const STEP2_GROUPS = grouped(STEP2)
const STEP3_GROUPS = grouped(STEP3)
const STEP4_GROUPS = grouped(STEP4.map((suffix): Rule => [suffix, '']))

const step = (word: string, groups: Map<string, Rule[]>, condition: (stem: number) => boolean) =>
  replaceFirst(word, groups.get(word.at(-2) ?? '') ?? [], condition)

/** Step 1a and 1b: plurals, -ed and -ing. */
function step1(word: string): string {
  let w = word
  if (w.endsWith('s')) {
    if ((w.length > 4 && w.endsWith('sses')) || (w.length > 3 && w.endsWith('ies'))) w = w.slice(0, -2)
    else if (!w.endsWith('ss')) w = w.slice(0, -1)
  }
  if (w.length > 3 && w.endsWith('eed')) {
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1)
    return w
  }
  const ending = w.endsWith('ed') && w.length > 2 ? 2 : w.endsWith('ing') && w.length > 3 ? 3 : 0
  if (ending === 0 || !hasVowel(w, w.length - ending)) return w
  w = w.slice(0, -ending)
  if (w.length > 2 && (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz'))) return `${w}e`
  const last = w.at(-1)!
  if (w.length > 1 && last === w.at(-2) && !VOWELS.has(last) && !'lsz'.includes(last)) return w.slice(0, -1)
  if (measure(w, w.length) === 1 && cvc(w, w.length)) return `${w}e`
  return w
}

/**
 * A folded word's stem, as FTS5's `porter` tokenizer makes it.
 *
 * @example
 * porterStem('running') // 'run'
 * porterStem('happiness') // 'happi'
 */
export function porterStem(word: string): string {
  if (word.length < 3 || word.length > 64 || !/^[a-z0-9]+$/.test(word)) return word
  let w = step1(word)
  if (w.endsWith('y') && hasVowel(w, w.length - 1)) w = `${w.slice(0, -1)}i`
  w = step(w, STEP2_GROUPS, (stem) => measure(w, stem) > 0)
  w = step(w, STEP3_GROUPS, (stem) => measure(w, stem) > 0)
  w = step(w, STEP4_GROUPS, (stem) =>
    w.endsWith('ion') && stem === w.length - 3
      ? measure(w, stem) > 1 && (w[stem - 1] === 's' || w[stem - 1] === 't')
      : measure(w, stem) > 1,
  )
  if (w.endsWith('e')) {
    const m = measure(w, w.length - 1)
    if (m > 1 || (m === 1 && !cvc(w, w.length - 1))) w = w.slice(0, -1)
  }
  if (w.length > 1 && w.endsWith('ll') && measure(w, w.length - 1) > 1) w = w.slice(0, -1)
  return w
}
