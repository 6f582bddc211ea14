/**
 * What the generated conversations talk about: events in a speaker's life, each said in one of
 * several ways (`say`), maybe asked about first by the other speaker (`prompt`), answered
 * (`react`), come back to in later sessions (`later`), and the questions it answers (`ask`; `when`
 * asks for its date, which only the session knows). Questions name the speaker, who never says
 * their own name; they use other forms of the words (`went` / `go`, `painting` / `painted`) and
 * sometimes other words altogether (`puppy` / `dog`), as people asking do. `{x}` is a slot filled
 * from `slots` (one choice per event), `{n}` the speaker's name, `{o}` the other's.
 */
export interface Topic {
  slots: Record<string, string[]>
  say: string[]
  prompt: string[]
  react: string[]
  later: string[]
  ask: string[]
  when: string[]
}

import { MORE_TOPICS } from './topics-more'

export const TOPICS: Topic[] = [
  {
    slots: { pet: ['dog', 'puppy', 'cat', 'kitten'], pname: ['Max', 'Luna', 'Biscuit', 'Pepper', 'Milo', 'Oreo'] },
    say: [
      "Guess what, we adopted a {pet} from the shelter on Saturday! We named him {pname} and he's already chewing every shoe in the house.",
      'We finally brought home a little {pet} from the rescue, {pname}. The kids fight over who gets to walk him first.',
    ],
    prompt: [
      'Any news at home? You mentioned wanting a pet for the kids.',
      'So did you end up getting that pet you talked about?',
    ],
    react: [
      'Aww, {pname} is such a cute name! Send me pictures right away.',
      'That is wonderful, a pet really makes a house a home.',
    ],
    later: ['{pname} knocked over the plant again this morning, typical.', 'How is {pname} settling in with everyone?'],
    ask: [
      "What is the name of {n}'s {pet}?",
      'What kind of pet did {n} adopt from the shelter?',
      "What animal joined {n}'s family?",
    ],
    when: ['When did {n} adopt {pname}?'],
  },
  {
    slots: { art: ['a sunset over the lake', 'a portrait of my grandmother', 'a field of sunflowers', 'the harbor at night'] },
    say: [
      'I just finished painting {art}. It took me three weekends but I love how the colors came out in the end.',
      'My latest canvas is {art}. I painted a little every evening after dinner and it finally feels done.',
    ],
    prompt: ['Have you been doing any art lately?', 'What have you been making in your studio these days?'],
    react: ['You are so talented! I would hang that in my living room.', 'I wish I could paint like you, seriously.'],
    later: ['I signed up for another art class, the teacher is great.', 'Still thinking about your painting, it was beautiful.'],
    ask: [
      'What did {n} paint recently?',
      "What was the subject of {n}'s latest painting?",
      'What is in the picture {n} painted?',
    ],
    when: ['When did {n} finish painting {art}?'],
  },
  {
    slots: {
      group: [
        'a support group for new parents',
        'an LGBTQ support group',
        'a grief support group',
        'a support group for caregivers',
      ],
    },
    say: [
      "I went to {group} yesterday. Hearing other people's stories was so powerful, I felt less alone for the first time in months.",
      'Yesterday I finally went to {group}. I cried a little, in a good way, and I am going back next week.',
    ],
    prompt: ['How have you been holding up with everything going on?', 'Did you try that meeting you were nervous about?'],
    react: ['I am really proud of you for going.', 'It takes courage to share like that.'],
    later: ['Are you going back to the group this week?', 'The group meets on Tuesdays now, which works better for me.'],
    ask: ['What kind of support group did {n} go to?', "Where did {n} hear other people's stories?"],
    when: ['When did {n} go to the support group?'],
  },
  {
    slots: {
      city: ['Lisbon', 'Kyoto', 'Montreal', 'Prague', 'Cape Town', 'Oaxaca'],
      with: ['my sister', 'my husband', 'my best friend', 'my parents'],
    },
    say: [
      'Just got back from {city}! I traveled there with {with} and we ate our way through the whole city, every market and bakery.',
      'We spent a week in {city}, {with} and me. The food alone was worth the long flight, and the old town was gorgeous.',
    ],
    prompt: ['Did you do anything fun over the break?', 'You look tanned, were you away somewhere?'],
    react: ['{city} has been on my list forever!', 'That sounds like the trip of a lifetime.'],
    later: ['I keep looking at my photos from {city}.', 'Would you go back to {city} someday?'],
    ask: ['Which city did {n} travel to with {with}?', 'Who traveled to {city} with {n}?', 'Where did {n} go on vacation?'],
    when: ['When did {n} visit {city}?'],
  },
  {
    slots: {
      race: ['a 10k charity run', 'a half marathon', 'a trail race in the mountains', "a 5k for the children's hospital"],
    },
    say: [
      'I ran {race} on Sunday! My legs are still sore but our team raised almost two thousand dollars for charity.',
      'Sunday was {race}. I finished in under an hour and I am still buzzing from the crowd cheering at the finish line.',
    ],
    prompt: ['How is the training going?', 'Did you do the race you signed up for?'],
    react: ['Amazing, congratulations on finishing!', 'You are inspiring me to start running again.'],
    later: ['My running shoes are worn out already.', 'Thinking of signing up for another race in the spring.'],
    ask: ['What race did {n} run?', 'What running event did {n} finish?', 'What sporting event did {n} take part in?'],
    when: ['When did {n} run {race}?'],
  },
  {
    slots: {
      job: [
        "a nurse at the children's hospital",
        'a software engineer at a startup',
        'a teacher at the middle school',
        'a chef at a bistro downtown',
      ],
    },
    say: [
      'Big news: I got the job! I start next month as {job}, after four rounds of interviews.',
      'I accepted an offer to work as {job}. Nervous but excited, it is a big change from my last job.',
    ],
    prompt: ['Any news on the job hunt?', 'Did you hear back after the interview?'],
    react: ['Congratulations, they are lucky to have you!', 'That is huge, we have to celebrate.'],
    later: ['My first week at work was exhausting but good.', 'How is the new job treating you?'],
    ask: ['What job did {n} get?', 'What position was {n} offered?', 'Where will {n} be working?'],
    when: ['When did {n} get the job as {job}?'],
  },
  {
    slots: { instrument: ['violin', 'guitar', 'piano', 'clarinet', 'drums'] },
    say: [
      'I have been playing the {instrument} since I was seven. It is how I relax after a long day at work.',
      'Practicing the {instrument} every night is my way to unwind, even just twenty minutes clears my head.',
    ],
    prompt: ['What do you do to relax these days?', 'Do you have any hobbies outside work?'],
    react: ['I would love to hear you play sometime.', 'Music is the best therapy.'],
    later: ['I learned a new song this week, my fingers hurt.', 'Are you still practicing every night?'],
    ask: ['What instrument does {n} play?', 'How does {n} unwind after work?', 'How long has {n} played the {instrument}?'],
    when: [],
  },
  {
    slots: {
      book: ['"Becoming" by Michelle Obama', '"The Midnight Library"', '"Project Hail Mary"', '"Educated" by Tara Westover'],
    },
    say: [
      'I just read {book} and it changed how I think about second chances. I could not stop underlining passages.',
      'Finished {book} last night, I could not put it down. You have to read it next.',
    ],
    prompt: ['Read anything good lately?', 'What are you reading these days?'],
    react: ['Adding it to my list right now.', 'I have heard so many good things about that one.'],
    later: ['I lent my copy of that book to my neighbor.', 'Did you start a new book yet?'],
    ask: [
      'What book did {n} read recently?',
      'Which book does {n} recommend?',
      'What book changed how {n} thinks about second chances?',
    ],
    when: ['When did {n} read {book}?'],
  },
  {
    slots: { course: ['pottery', 'salsa dancing', 'Italian cooking', 'photography', 'rock climbing'] },
    say: [
      'I signed up for a {course} class on Thursday evenings. The first session was so much fun, I made a new friend too.',
      'Started taking {course} lessons at the community center. I am terrible at it but I love every minute.',
    ],
    prompt: ['Trying anything new these days?', 'You said you wanted a new hobby, any luck?'],
    react: ['That sounds like a great way to meet people.', 'I always wanted to try that!'],
    later: ['The class made me realize how impatient I am.', 'How was the class this week?'],
    ask: ['What class did {n} sign up for?', 'What lessons is {n} taking?', 'What new hobby did {n} pick up?'],
    when: ['When did {n} start the {course} class?'],
  },
  {
    slots: {
      kid: ['my son', 'my daughter', 'my oldest', 'my youngest'],
      event: ['won the science fair', 'scored the winning goal', 'got the lead in the school play', 'learned to ride a bike'],
    },
    say: [
      'So proud of {kid}, who {event} this weekend! We went out for ice cream to celebrate.',
      'You will never guess: {kid} {event}. I teared up in front of all the other parents.',
    ],
    prompt: ['How are the kids doing?', 'Anything new with the little ones?'],
    react: ['That is so exciting, tell them congratulations from me!', 'Proud parent moment!'],
    later: ['The kids are driving me a bit crazy this week.', 'We put the trophy on the shelf in the hallway.'],
    ask: ["What did {n}'s child do that made {n} proud?", "Which of {n}'s kids {event}?", 'How did {n} celebrate with the kids?'],
    when: ["When did {n}'s child {event}?"],
  },
  {
    slots: { car: ['a used hybrid', 'an electric car', 'a red convertible', 'a minivan'] },
    say: [
      'We bought {car} last week, the old car finally died on the highway and we had to get it towed.',
      'After months of looking we got {car}. We test drove six of them before deciding.',
    ],
    prompt: ['How is the car situation?', 'Did you replace the old car yet?'],
    react: ['Road trip time!', 'Good riddance to the old one.'],
    later: ['The new car makes the commute so much nicer.', 'Have you taken the car on a long drive yet?'],
    ask: ['What car did {n} buy?', 'What did {n} buy after the old car died?', 'What vehicle does {n} drive now?'],
    when: ['When did {n} buy {car}?'],
  },
  ...MORE_TOPICS,
]
