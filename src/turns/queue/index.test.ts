import { describe, expect, it } from 'vitest'
import { TurnQueue } from '.'

const tick = () => new Promise((resolve) => setTimeout(resolve, 1))

describe('TurnQueue', () => {
  it('runs turns one at a time, in arrival order', async () => {
    const queue = new TurnQueue()
    const order: string[] = []
    const turn = (name: string) =>
      queue.run(async () => {
        order.push(`${name} starts`)
        await tick()
        order.push(`${name} ends`)
        return name
      })
    expect(await Promise.all([turn('a'), turn('b'), turn('c')])).toEqual(['a', 'b', 'c'])
    expect(order).toEqual(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends'])
  })

  it('lets the next turn start once the running one releases early', async () => {
    const queue = new TurnQueue()
    const order: string[] = []
    const first = queue.run(async (releaseEarly) => {
      order.push('first writes')
      releaseEarly()
      await tick()
      await tick()
      order.push('first compacts')
    })
    const second = queue.run(async () => {
      order.push('second starts')
    })
    await Promise.all([first, second])
    expect(order).toEqual(['first writes', 'second starts', 'first compacts'])
  })

  it('is released by a turn that fails', async () => {
    const queue = new TurnQueue()
    const failed = queue.run(async () => {
      throw new Error('upstream down')
    })
    await expect(failed).rejects.toThrow('upstream down')
    expect(await queue.run(async () => 'next')).toBe('next')
  })
})
