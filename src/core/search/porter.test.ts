import { describe, expect, it } from 'vitest'
import { verbBaseOf, verbFormsOf } from './irregular'
import { porterStem } from './porter'
import { isStopWord } from './stop-words'

describe('the Porter stemmer', () => {
  it("gives the stems of Porter's paper (each step's examples)", () => {
    const examples: Record<string, string> = {
      caresses: 'caress',
      ponies: 'poni',
      ties: 'ti',
      caress: 'caress',
      cats: 'cat',
      feed: 'feed',
      agreed: 'agre',
      plastered: 'plaster',
      bled: 'bled',
      motoring: 'motor',
      sing: 'sing',
      conflated: 'conflat',
      troubled: 'troubl',
      sized: 'size',
      hopping: 'hop',
      tanned: 'tan',
      falling: 'fall',
      hissing: 'hiss',
      fizzed: 'fizz',
      failing: 'fail',
      filing: 'file',
      happy: 'happi',
      sky: 'sky',
      relational: 'relat',
      conditional: 'condit',
      rational: 'ration',
      digitizer: 'digit',
      vietnamization: 'vietnam',
      predication: 'predic',
      operator: 'oper',
      feudalism: 'feudal',
      decisiveness: 'decis',
      hopefulness: 'hope',
      callousness: 'callous',
      formaliti: 'formal',
      sensitiviti: 'sensit',
      sensibiliti: 'sensibl',
      triplicate: 'triplic',
      formative: 'form',
      formalize: 'formal',
      electriciti: 'electr',
      electrical: 'electr',
      hopeful: 'hope',
      goodness: 'good',
      revival: 'reviv',
      allowance: 'allow',
      inference: 'infer',
      airliner: 'airlin',
      adjustable: 'adjust',
      defensible: 'defens',
      irritant: 'irrit',
      replacement: 'replac',
      adjustment: 'adjust',
      dependent: 'depend',
      adoption: 'adopt',
      communism: 'commun',
      activate: 'activ',
      homologous: 'homolog',
      effective: 'effect',
      bowdlerize: 'bowdler',
      probate: 'probat',
      rate: 'rate',
      cease: 'ceas',
      controll: 'control',
      roll: 'roll',
    }
    for (const [word, stem] of Object.entries(examples)) expect(porterStem(word), word).toBe(stem)
  })

  it('relates the forms people ask with to the ones they wrote', () => {
    for (const [a, b] of [
      ['running', 'runs'],
      ['painted', 'painting'],
      ['adopted', 'adoption'],
      ['volunteering', 'volunteers'],
    ]) {
      expect(porterStem(a!), `${a} ~ ${b}`).toBe(porterStem(b!))
    }
  })

  it('leaves words under 3 or over 64 letters, and words with other letters, as they are', () => {
    expect(porterStem('is')).toBe('is')
    expect(porterStem(`${'a'.repeat(65)}ing`)).toBe(`${'a'.repeat(65)}ing`)
    expect(porterStem('zürich')).toBe('zürich')
  })
})

describe('the words ranking leaves out and relates', () => {
  it('drops function words, keeps content words', () => {
    for (const word of ['the', 'when', 'did', 'to', 'what', 'would']) expect(isStopWord(word), word).toBe(true)
    for (const word of ['group', 'support', 'paris', 'dog', 'go']) expect(isStopWord(word), word).toBe(false)
  })

  it('knows an irregular verb by any of its forms', () => {
    expect(verbFormsOf('went')).toEqual(['went', 'go', 'gone', 'goes'])
    expect(verbFormsOf('buy')).toEqual(['buy', 'bought'])
    expect(verbBaseOf('ran')).toBe('run')
    expect(verbFormsOf('table')).toEqual(['table'])
  })
})
