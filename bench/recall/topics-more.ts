/** The rest of the topics of `./topics` (the same fields): home, health, school, family and friends. */
import type { Topic } from './topics'

export const MORE_TOPICS: Topic[] = [
  {
    slots: { food: ['lasagna', 'banana bread', 'a lemon tart', 'dumplings from scratch', 'sourdough bread'] },
    say: [
      'I baked {food} for the neighbors and they asked for the recipe. First time trying it!',
      'Tried making {food} for the first time, it turned out better than expected and the neighbors loved it.',
    ],
    prompt: ['What did you do this weekend?', 'Been cooking anything good lately?'],
    react: ['Save me a piece next time!', 'You should start a food blog.'],
    later: ['I burned dinner last night, not my finest moment.', 'The recipe is on the fridge if you want it.'],
    ask: ['What did {n} bake for the neighbors?', 'What recipe did {n} try for the first time?'],
    when: ['When did {n} make {food}?'],
  },
  {
    slots: { cause: ['the animal shelter', 'a food bank', 'the public library', 'a youth mentoring program'] },
    say: [
      'I started volunteering at {cause} on Saturdays. It feels good to give back, and everyone there is so kind.',
      'Every Saturday morning now I volunteer with {cause}. It is the best part of my week honestly.',
    ],
    prompt: ['How do you spend your Saturdays these days?', 'You seem happier lately, what changed?'],
    react: ['That is such a kind thing to do.', 'They are lucky to have you there.'],
    later: ['Saturday was busy, so many people came in.', 'Still volunteering on weekends?'],
    ask: ['Where does {n} volunteer?', 'What does {n} do on Saturday mornings?', 'How does {n} give back to the community?'],
    when: ['When did {n} start volunteering?'],
  },
  {
    slots: { place: ['a cabin by the lake', 'the coast', 'Yosemite', 'the mountains'] },
    say: [
      'We went camping at {place} with the kids. We roasted marshmallows every night and saw a bear from far away.',
      'Our camping trip to {place} was the highlight of my summer, no phones, just hiking and campfires.',
    ],
    prompt: ['Any summer plans?', 'Did you get outside at all this month?'],
    react: ['A bear! I would have run.', 'Sounds so peaceful.'],
    later: ['I still have mosquito bites from the trip.', 'We should plan a camping trip together.'],
    ask: [
      'Where did {n} go camping?',
      'What animal did {n} see on the camping trip?',
      'What did {n} do with the kids in the summer?',
    ],
    when: ['When did {n} go camping at {place}?'],
  },
  {
    slots: { illness: ['the flu', 'a bad cold', 'a sprained ankle', 'a migraine that lasted days'] },
    say: [
      'Sorry I went quiet, I was stuck in bed with {illness} and could barely look at my phone.',
      'I have been out of it, {illness} knocked me flat for a whole week and I missed work.',
    ],
    prompt: ["Haven't heard from you in a while, everything okay?", 'Are you feeling better?'],
    react: ['Oh no, I hope you are resting!', 'Drink lots of water and rest up.'],
    later: ['Finally feeling like myself again.', 'Glad you are back on your feet.'],
    ask: ['What was {n} sick with?', 'Why did {n} miss work for a week?', 'What kept {n} in bed?'],
    when: ['When was {n} sick with {illness}?'],
  },
  {
    slots: { move: ['a bigger apartment across town', 'a small house with a garden', 'a place near the beach', 'my hometown'] },
    say: [
      'We are moving to {move}! There are boxes everywhere and I keep losing the tape.',
      'Signed the lease today, we are moving to {move} at the end of the month.',
    ],
    prompt: ['How is the house hunting going?', 'Did you find a new place?'],
    react: ['A fresh start, how exciting!', 'Let me know if you need help carrying boxes.'],
    later: ['Unpacking is taking forever.', 'How do you like the new neighborhood?'],
    ask: ['Where is {n} moving to?', 'What kind of place did {n} find?', 'Where does {n} live now?'],
    when: ['When did {n} sign the lease?'],
  },
  {
    slots: { concert: ['Taylor Swift', 'a jazz quartet', 'the symphony orchestra', 'an indie band from Seattle'] },
    say: [
      'Went to see {concert} live last night, the energy in that room was unreal.',
      'Last night I saw {concert} in concert and sang along until I lost my voice.',
    ],
    prompt: ['Do anything fun last night?', 'Why do you sound hoarse?'],
    react: ['Jealous! I have always wanted to go.', 'Live music is the best.'],
    later: ['I still have the song stuck in my head.', 'Any more concerts coming up?'],
    ask: ['Who did {n} see in concert?', 'What live music did {n} go to?', 'Why did {n} lose their voice?'],
    when: ['When did {n} see {concert}?'],
  },
  {
    slots: { plant: ['tomatoes', 'roses', 'herbs on the balcony', 'a vegetable patch'] },
    say: [
      'I started growing {plant} this spring. Every morning I check on them with my coffee before work.',
      'My new project is gardening: {plant}, watered every morning. Something calming about it.',
    ],
    prompt: ['What is keeping you busy at home?', 'Got any new projects?'],
    react: ['Fresh from the garden is the best.', 'I kill every plant I touch, teach me.'],
    later: ['The squirrels found my garden, unbelievable.', 'How is the garden doing?'],
    ask: ['What is {n} growing in the garden?', 'What does {n} check on every morning?'],
    when: ['When did {n} start growing {plant}?'],
  },
  {
    slots: { degree: ["a master's in counseling", 'a nursing degree', 'a certificate in web design', 'a psychology degree'] },
    say: [
      'I enrolled in {degree} program, classes start in the fall. I have wanted this for years.',
      'Decided to go back to school for {degree}. Scary at my age, but it feels right.',
    ],
    prompt: ['Still thinking about going back to school?', 'What are your plans for the fall?'],
    react: ['You will be amazing at that.', 'Going back to school takes guts.'],
    later: ['Homework on a Friday night, this is my life now.', 'How are your classes going?'],
    ask: ['What is {n} studying?', 'What program did {n} enroll in?', 'What degree is {n} going back to school for?'],
    when: ['When did {n} decide to go back to school?'],
  },
  {
    slots: { gift: ['a handmade quilt', 'a telescope', 'concert tickets', 'a necklace with her initials'] },
    say: [
      "For my mom's birthday I gave her {gift}. She cried when she opened it.",
      'I got my mother {gift} for her birthday and she has not stopped talking about it.',
    ],
    prompt: ['What did you end up getting your mom?', 'How was the birthday party?'],
    react: ['That is so thoughtful!', 'Best gift ever.'],
    later: ['Mom keeps talking about her birthday.', 'My mother says hi, by the way.'],
    ask: ['What did {n} give their mother for her birthday?', 'What birthday present did {n} get for mom?'],
    when: ['When did {n} give {gift} to their mom?'],
  },
  {
    slots: { friend: ['Jenna', 'Marcus', 'Priya', 'Tomás'], years: ['ten', 'fifteen', 'twenty', 'four'] },
    say: [
      'I had dinner with {friend}, we have been friends for {years} years and it felt like no time had passed.',
      'Caught up with {friend} over dinner, {years} years of friendship and we still laugh at the same jokes.',
    ],
    prompt: ['Seen any old friends lately?', 'What did you do on Friday night?'],
    react: ['Old friends are the best.', 'Tell {friend} I said hi!'],
    later: ['{friend} is coming to visit next month.', 'How is {friend} doing?'],
    ask: ['How long has {n} been friends with {friend}?', 'Which old friend did {n} have dinner with?'],
    when: ['When did {n} have dinner with {friend}?'],
  },
]
