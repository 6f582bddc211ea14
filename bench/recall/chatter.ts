/**
 * What the generated conversations say between the events of `./topics`: greetings that name the
 * other speaker, small talk, plans, and goodbyes. Much of it shares words with the questions
 * ("weekend", "kids", "work", "class", "trip", "friends"), as real small talk does, so that a
 * question's words alone do not point at its answer.
 */

/** A session's first line; `{o}` is the one spoken to. */
export const GREETINGS = [
  'Hey {o}! How have you been?',
  'Hi {o}, long time no talk!',
  'Good morning {o}! Got a minute to catch up?',
  '{o}! I was just thinking about you.',
  'Hey {o}, how was your week?',
]

/** Answers to a greeting. */
export const GREETING_REPLIES = [
  'Hi! Busy as always, but good. You?',
  'Hey! Things have been hectic, but I am hanging in there.',
  'So good to hear from you! Life has been a whirlwind.',
  'Doing well, thanks for asking. Lots going on.',
]

/** Small talk, said by either speaker anywhere in a session. */
export const SMALL_TALK = [
  'Work has been crazy this week, so many meetings.',
  'The weather finally turned, I love this time of year.',
  'The kids had a long weekend so the house was loud.',
  'I have been trying to go to bed earlier, with mixed results.',
  'We watched a movie on Friday, nothing special but fun.',
  'My sister called, she says hi.',
  'I need a vacation, honestly.',
  'That sounds great, I am really happy for you.',
  'Haha, that is so you.',
  'I know what you mean, it has been a lot.',
  'Thanks for always listening, it means a lot.',
  'We should get together soon, it has been too long.',
  'I made a new playlist for my commute, want me to send it?',
  'Coffee is the only thing keeping me going today.',
  'I tried a new recipe but it was just okay.',
  'Our neighbors got a new dog and it barks all night.',
  'The traffic this morning was unbelievable.',
  'I finally cleaned out the garage, found so much old stuff.',
  'My friends and I are planning a trip, nothing booked yet.',
  'I have been reading more instead of scrolling, it helps.',
  'The class I was thinking about is full, maybe next term.',
  'We went to the park with the kids, they ran around for hours.',
  'Did you see the game last night? What a finish.',
  'I am trying to drink more water, day three going strong.',
  'Family dinner on Sunday turned into a three hour debate.',
  'I started journaling again, it clears my head.',
  'Our team at work got a new manager, we will see.',
  'I bought way too many plants at the market.',
  'The new cafe down the street makes great pastries.',
  'It is wild how fast this year is going.',
  'I love that, tell me more next time.',
  'My back hurts from sitting all day, need a better chair.',
  'We are thinking about painting the kitchen.',
  'I had the weirdest dream last night.',
  'Honestly proud of how far you have come.',
]

/** A session's last lines. */
export const GOODBYES = [
  'I have to run, talk soon!',
  'Take care, chat next week!',
  'Gotta go make dinner, bye!',
  'Okay, signing off. Love catching up with you.',
]
