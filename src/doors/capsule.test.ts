import { describe, expect, it } from 'vitest'
import { newSecret as newCapsuleSecret } from '../contract/ids'
import { openCapsule, sealCapsule } from './capsule'

const claims = { userId: 'alice', sessionId: 's1', eventId: 'evt_1' }

describe('compaction capsules', () => {
  it('open to the claims they were sealed with, under the same secret only', async () => {
    const secret = newCapsuleSecret()
    const token = await sealCapsule(secret, claims)
    expect(await openCapsule(secret, token)).toEqual(claims)
    expect(await openCapsule(newCapsuleSecret(), token)).toBeNull()
  })

  it('refuse anything altered or made up', async () => {
    const secret = newCapsuleSecret()
    const token = await sealCapsule(secret, claims)
    const [prefix, payload, signature] = token.split('.')
    const other = Buffer.from(JSON.stringify({ u: 'mallory', s: 's1', e: 'evt_1' })).toString('base64url')
    for (const forged of [
      `${prefix}.${other}.${signature}`,
      `${prefix}.${payload}.${signature!.slice(0, -2)}AA`,
      `dsc2.${payload}.${signature}`,
      `${token}.x`,
      'gAAAAABo-not-ours',
      '',
    ])
      expect(await openCapsule(secret, forged), forged).toBeNull()
  })
})
