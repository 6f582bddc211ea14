/**
 * Forms of English irregular verbs that no stemmer relates ("went" and "go", "bought" and "buy"):
 * a query's word finds its verb's other forms too, as a stem finds "running" from "runs". Each
 * verb (between bars or line ends) is its base, past and past participle, and a third-person form the Porter stemmer
 * does not bring back to the base ("goes" → "goe"). Verbs whose forms are as often other words
 * are left out (bear, bind, grind, lie, wind).
 */
const VERBS = `
  arise arose arisen | awake awoke awoken | beat beaten | become became
  begin began begun | bend bent | bet | bite bit bitten | bleed bled | blow blew blown
  break broke broken | breed bred | bring brought | build built | burn burnt | burst | buy bought
  catch caught | choose chose chosen | cling clung | come came | cost | creep crept | cut | deal dealt
  dig dug | draw drew drawn | dream dreamt | drink drank drunk | drive drove driven | eat ate eaten
  fall fell fallen | feed fed | feel felt | fight fought | find found | flee fled | fling flung
  fly flew flown flies | forbid forbade forbidden | forget forgot forgotten | forgive forgave forgiven
  freeze froze frozen | get got gotten | give gave given | go went gone goes
  grow grew grown | hang hung | hear heard | hide hid hidden | hit | hold held | hurt | keep kept
  kneel knelt | know knew known | lay laid | lead led | lean leant | leap leapt | learn learnt
  leave left | lend lent | let | light lit | lose lost | make made | mean meant
  meet met | pay paid | prove proven | put | quit | read | ride rode ridden | ring rang rung
  rise rose risen | run ran | say said | see saw seen | seek sought | sell sold | send sent | set
  sew sewn | shake shook shaken | shine shone | shoot shot | show shown | shrink shrank shrunk
  shut | sing sang sung | sink sank sunk | sit sat | sleep slept | slide slid | speak spoke spoken
  speed sped | spend spent | spin spun | split | spread | spring sprang sprung | stand stood
  steal stole stolen | stick stuck | sting stung | stink stank stunk | strike struck | swear swore sworn
  sweep swept | swim swam swum | swing swung | take took taken | teach taught | tear tore torn
  tell told | think thought | throw threw thrown | understand understood | wake woke woken
  wear wore worn | weave wove woven | weep wept | win won | write wrote written
`

/** Each form's verb: all its forms, base first. */
const FORMS = new Map<string, readonly string[]>()
for (const verb of VERBS.split(/[|\n]/)) {
  const forms = verb.trim().split(/\s+/).filter(Boolean)
  for (const form of forms) if (!FORMS.has(form)) FORMS.set(form, forms)
}

/**
 * A folded word's verb as its base form (itself when it is no irregular verb's form).
 *
 * @example
 * verbBaseOf('bought') // 'buy'
 */
export const verbBaseOf = (word: string): string => FORMS.get(word)?.[0] ?? word

/**
 * A folded word's irregular verb forms, itself first (just itself when it is none).
 *
 * @example
 * verbFormsOf('went') // ['went', 'go', 'gone', 'goes']
 * verbFormsOf('table') // ['table']
 */
export function verbFormsOf(word: string): string[] {
  const forms = FORMS.get(word)
  return forms ? [word, ...forms.filter((form) => form !== word)] : [word]
}
