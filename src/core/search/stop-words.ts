/**
 * English words too common to rank by: articles, pronouns, auxiliary and modal verbs,
 * prepositions, conjunctions and question words (the list NLTK ships, with the modal verbs and
 * `whose`). A question asked in a sentence ("when did she go to the support group?") is ranked
 * by what is left ("support group", "go"). Only ranking drops them: `all` still wants every word.
 */
const WORDS = `
  a about above after again against ain all am an and any are aren as at
  be because been before being below between both but by
  can could couldn d did didn do does doesn doing don down during
  each few for from further had hadn has hasn have haven having he her here hers herself him himself his how
  i if in into is isn it its itself just ll m ma may me might mightn more most must mustn my myself
  needn no nor not now o of off on once only or other our ours ourselves out over own
  re s same shall shan she should shouldn so some such t than that the their theirs them themselves then there
  these they this those through to too under until up ve very was wasn we were weren what when where which
  while who whom whose why will with won would wouldn y you your yours yourself yourselves
`

const STOP_WORDS: ReadonlySet<string> = new Set(WORDS.trim().split(/\s+/))

/**
 * Whether a folded word is a stop word.
 *
 * @example
 * isStopWord('the') // true
 * isStopWord('group') // false
 */
export const isStopWord = (word: string): boolean => STOP_WORDS.has(word)
