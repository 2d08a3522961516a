import { describe, expect, it } from 'vitest';
import { Gazetteer } from '../../processors/mentions/gazetteer.ts';
import { identifySpeakers } from '../../processors/speakers/identify.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';
import type { Entity, EpisodePublished, Podcast, Transcript } from '../../schemas/generated/index.ts';

/**
 * Issue 21, case 1, from synthetic lines that reproduce real diarized speech: merged turns with
 * several cues inside, generic labels ("Guest", "Unknown"), public figures named right after a
 * cue, a label that carries the host's name, turns cut a few words late, and call-ins.
 */
const base = loadExample('Entity') as Entity;
const person = (id: string, name: string, extra: Partial<Entity> = {}): Entity => ({
  ...base,
  id,
  slug: id,
  kind: 'PERSON',
  name,
  aliases: [],
  nicknames: [],
  handles: [],
  context_terms: [],
  variants: [],
  company: null,
  person: null,
  category: { slug: 'people', name: 'People' },
  ...extra,
});
const amit = person('amit', 'Amit Varma', { variants: ['Amit Verma'] });
const shashi = person('shashi', 'Shashi Tharoor', { aliases: ['Tharoor'] });
const modi = person('modi', 'Narendra Modi', { aliases: ['Modi'] });
const pavan = person('pavan', 'Pavan Srinath');
const karthik = person('karthik', 'Karthik Shashidhar');
const everyone = new Map([amit, shashi, modi, pavan, karthik].map((e) => [e.id, e]));
const gazetteer = new Gazetteer();
for (const e of everyone.values()) gazetteer.add(e);
const deps = { gazetteer, entity: (id: string) => everyone.get(id), identifiedAt: 0 };
const podcast = { ...(loadExample('Podcast') as Podcast), hosts: ['amit'] };
const episode = loadExample('EpisodePublished') as EpisodePublished;

function transcript(...rows: [string, string][]): Transcript {
  return {
    episode_id: episode.id,
    language: 'en',
    transcribed_at: 0,
    lines: rows.map(([speaker, text], i) => ({
      number: i + 1,
      speaker,
      role: null,
      start_seconds: i * 60,
      end_seconds: i * 60 + 59,
      text,
      words: null,
    })),
  };
}

/** A turn of about 13·n words that names nobody. */
const long = (n: number) =>
  Array.from({ length: n }, () => 'the land laws were written for a different country and it shows').join(
    ', and ',
  ) + '.';

const identify = (t: Transcript, guests: string[]) =>
  Object.fromEntries(
    identifySpeakers(
      t,
      {
        episode: {
          ...episode,
          people: [{ name: 'Amit Varma', role: 'host' }, ...guests.map((name) => ({ name, role: 'guest' }))],
        },
        podcast,
        adReads: [],
      },
      deps,
    ).speakers.map((s) => [s.label, [s.person_id, s.role]]),
  );

describe('case 1: speaker identification that reads sentences', () => {
  it('never gives a label to someone who is only talked about, whatever cue sits in the turn', () => {
    const t = transcript(
      ['Unknown', 'Welcome to the show. Please welcome your host, Amit Verma.'],
      [
        'Amit Varma',
        'Thank you. My guest today is Shashi Tharoor, and we are talking about his book on Narendra Modi. ' +
          'Thank you for the book, it is remarkable. Let us go to what Narendra Modi said in his interview, ' +
          'which many found paradoxical. Shashi, what did you make of it?',
      ],
      [
        'Guest',
        'Thanks, Amit. Narendra Modi has been saying this for years, and I told him so in parliament.',
      ],
      ['Amit Varma', 'And the second thing he said, about the economy. Tharoor, is that fair?'],
      ['Guest', 'Well, as Modi likes to put it, the numbers speak. They do not.'],
    );
    expect(identify(t, ['Shashi Tharoor'])).toEqual({
      Unknown: [null, 'GUEST'],
      'Amit Varma': ['amit', 'HOST'],
      Guest: ['shashi', 'GUEST'],
    });
  });

  it('reads a label that is a person’s name, but lets the dialogue overrule it (labels swapped)', () => {
    const named = transcript(
      ['Amit Varma', 'Welcome back to the show.'],
      ['Guest', 'It is good to be back, and I have a lot to say about the book.'],
      ['Guest', 'The first chapter is about the interview.'],
      ['Amit Varma', 'Go on.'],
      ['Guest', 'And the second one is about the economy.'],
    );
    // Nothing in the dialogue names anyone: the label that is the host's name is the host, not
    // the busiest label.
    expect(identify(named, [])).toMatchObject({ 'Amit Varma': ['amit', 'HOST'] });
    const t = transcript(
      [
        'Guest',
        'My guest today is Shashi Tharoor. Shashi, welcome to the show. What did you think of the interview?',
      ],
      ['Amit Varma', 'Good to be with you, Amit. I read the excerpts, and I was taken aback.'],
      ['Guest', 'Shashi, your book calls him paradoxical. Why not hypocritical?'],
      ['Amit Varma', 'Because, Amit, I gave him the benefit of the doubt when I began.'],
      ['Guest', 'Thank you, Shashi. That was a wonderful conversation.'],
    );
    expect(identify(t, ['Shashi Tharoor'])).toEqual({
      Guest: ['amit', 'HOST'],
      'Amit Varma': ['shashi', 'GUEST'],
    });
  });

  it('takes the credits as priors for generic labels, and first names by how they sound', () => {
    const t = transcript(
      [
        'Amit Varma',
        'My guests today are Pavan Srinath and Karthik Shashidhar. Karthik, what are the unseen effects?',
      ],
      [
        'Guest 1',
        'The unseen effects are that farmers cannot leave. As Pawan said last week, land is trapped.',
      ],
      ['Amit Varma', 'Pawan, give me some background on the land laws.'],
      ['Guest 2', 'Sure. The laws go back to the fifties, and Karthik has written about them too.'],
      ['Unknown', 'Take care.'],
    );
    expect(identify(t, ['Pavan Srinath', 'Karthik Shashidhar'])).toEqual({
      'Amit Varma': ['amit', 'HOST'],
      'Guest 1': ['karthik', 'GUEST'],
      'Guest 2': ['pavan', 'GUEST'],
      Unknown: [null, 'GUEST'],
    });
  });

  it('reads a turn cut late: a line opening in lower case ends the previous speaker’s sentence', () => {
    const t = transcript(
      ['Amit Varma', 'So tell me about the paper you wrote with'],
      ['Guest 1', 'your co-author, Karthik? Yes. We wrote it in a month, and it showed.'],
      ['Amit Varma', 'It did not show at all. Pavan, what did you think of it?'],
      ['Guest 2', 'I liked it, though it was long.'],
    );
    expect(identify(t, ['Pavan Srinath', 'Karthik Shashidhar'])).toEqual({
      'Amit Varma': ['amit', 'HOST'],
      'Guest 1': ['karthik', 'GUEST'],
      'Guest 2': ['pavan', 'GUEST'],
    });
  });

  it('takes a self-introduction as the speaker’s name, not a sentence that only starts like one', () => {
    // Nobody credited but the host, generic labels and no hand-off: only what each label says of
    // itself puts the guests in the room and tells them apart. "I am Karthik Shashidhar fan" does not end its clause at the
    // name, and "if I were Pavan Srinath" is a supposition: neither introduces anyone.
    const t = transcript(
      ['Amit Varma', 'Welcome back to the show, where today we talk about land.'],
      ['Guest 1', 'Hi, this is Karthik Shashidhar. Thanks for having me back on the show.'],
      [
        'Guest 2',
        'Thanks. I am Karthik Shashidhar fan, honestly, and if I were Pavan Srinath I would say so too. ' +
          "So, I'm Pavan Srinath.",
      ],
      ['Guest 1', 'And the land laws go back to the fifties, which is where it starts.'],
      ['Guest 2', 'They do, and it shows.'],
    );
    expect(identify(t, [])).toEqual({
      'Amit Varma': ['amit', 'HOST'],
      'Guest 1': ['karthik', 'GUEST'],
      'Guest 2': ['pavan', 'GUEST'],
    });
    // The same supposition and fandom alone, with one label speaking them: nobody introduced.
    const none = transcript(
      ['Amit Varma', 'Welcome back to the show.'],
      ['SPEAKER_1', 'I am Karthik Shashidhar fan, honestly. And if I were Pavan Srinath I would say so.'],
      ['SPEAKER_2', 'Fair enough.'],
    );
    const got = identifySpeakers(
      none,
      { episode: { ...episode, people: [] }, podcast, adReads: [] },
      deps,
    ).speakers.map((s) => [s.label, s.person_id]);
    expect(got).toEqual([
      ['Amit Varma', 'amit'],
      ['SPEAKER_1', null],
      ['SPEAKER_2', null],
    ]);
  });

  it('gives a lone credited guest the voice that clearly speaks most when the dialogue cannot tell', () => {
    // The host's introduction is followed by the jingle's label ("Unknown", a few words): a
    // hand-off right before a diarizer's leftover is not enough to name it. Of the two voices
    // left, one speaks more than twice the words of the other.
    const t = transcript(
      ['Amit Varma', 'Welcome to the show. My guest today is Pavan Srinath.'],
      ['Unknown', 'Music.'],
      ['Guest', `Thanks. ${long(30)}`],
      ['Amit Varma', 'Why is that?'],
      ['Guest', long(30)],
      ['Unknown', 'Ad break. Music.'],
      ['Amit Varma', 'And then?'],
      ['Guest', long(30)],
      ['Other', `Yes, ${long(20)}`],
    );
    expect(identify(t, ['Pavan Srinath'])).toEqual({
      'Amit Varma': ['amit', 'HOST'],
      Unknown: [null, 'GUEST'],
      Guest: ['pavan', 'GUEST'],
      Other: [null, 'GUEST'],
    });
    // Two voices of about the same size and nothing to tell them apart: neither.
    const even = transcript(
      ['Amit Varma', 'Welcome back to the show, where today we talk about land.'],
      ['Guest', long(20)],
      ['Other', long(15)],
      ['Amit Varma', 'Interesting.'],
    );
    expect(identify(even, ['Pavan Srinath'])).toMatchObject({
      Guest: [null, 'GUEST'],
      Other: [null, 'GUEST'],
    });
  });

  it('does not hold a storyteller’s reported speech against him: "Ravi said, Pavan, you should…"', () => {
    // The only voice left quotes people calling him by his name, seven times in about 3,000
    // words: rare in all he says, so it is not evidence that he is someone else. (A label that
    // keeps naming the guest in short turns still is: see the confidence test below.)
    const t = transcript(
      ['Amit Varma', 'Welcome back to the show.'],
      ['Guest', `Thanks. My father said, Pavan, read. ${long(80)} And my teacher said, Pavan, write.`],
      ['Amit Varma', 'Why is that?'],
      ['Guest', `My editor said, Pavan, write it down. ${long(80)} And I said to her, no.`],
      ['Amit Varma', 'And then?'],
      ['Guest', `Then Ravi told me, Pavan, you are wrong. ${long(80)} Pavan, he said, go home.`],
    );
    expect(identify(t, ['Pavan Srinath'])).toEqual({
      'Amit Varma': ['amit', 'HOST'],
      Guest: ['pavan', 'GUEST'],
    });
  });

  it('credits the person whose name the credit is when another shares it as an alias', () => {
    // A guest and the historical figure of the same name: the credit "Jayant Rao" is the guest's
    // catalog name and only an alias of the other.
    const guestRao = person('rao', 'Jayant Rao');
    const oldRao = person('rao-1902', 'Jayant Rao (1902-1979)', { aliases: ['Jayant Rao'] });
    const cast = new Map([amit, guestRao, oldRao].map((e) => [e.id, e]));
    const g = new Gazetteer();
    for (const e of cast.values()) g.add(e);
    const t = transcript(
      ['Amit Varma', 'Welcome back to the show. Today we talk about the reform of the states.'],
      ['Guest', long(10)],
      ['Amit Varma', 'Go on.'],
      ['Guest', long(10)],
    );
    const got = identifySpeakers(
      t,
      {
        episode: {
          ...episode,
          people: [
            { name: 'Amit Varma', role: 'host' },
            { name: 'Jayant Rao', role: 'guest' },
          ],
        },
        podcast,
        adReads: [],
      },
      { gazetteer: g, entity: (id: string) => cast.get(id), identifiedAt: 0 },
    ).speakers.map((x) => [x.label, x.person_id, x.role]);
    expect(got).toEqual([
      ['Amit Varma', 'amit', 'HOST'],
      ['Guest', 'rao', 'GUEST'],
    ]);
  });

  it('names a caller only with a name: not "And" or "So"', () => {
    const t = transcript(
      ['Amit Varma', 'Let us take a call. And from the look of it, you are on the air.'],
      ['Caller 1', 'Hi, long-time listener.'],
      ['Amit Varma', 'We have a caller on the line, Maria from Chicago. Go ahead.'],
      ['Caller 2', 'Hi, thanks for taking my call.'],
    );
    const got = identifySpeakers(
      t,
      { episode: { ...episode, people: [] }, podcast, adReads: [] },
      deps,
    ).speakers.map((s) => [s.label, s.role, s.name]);
    expect(got).toEqual([
      ['Amit Varma', 'HOST', 'Amit Varma'],
      ['Caller 1', 'GUEST', null],
      ['Caller 2', 'AUDIENCE', 'Maria'],
    ]);
  });

  it('leaves a label unidentified when the evidence is below the threshold, and says how sure it is', () => {
    // The only label left keeps talking about the only guest left: it is not the guest.
    const about = transcript(
      ['Amit Varma', 'Welcome back. Today we talk about the farm laws.'],
      ['Guest', 'Pavan Srinath wrote about this, and as Pavan Srinath said, the land is trapped.'],
      ['Amit Varma', 'Right.'],
      ['Guest', 'I told Pavan Srinath the same thing last year, and Pavan Srinath agreed.'],
      ['Amit Varma', 'Interesting.'],
      ['Guest', 'Pavan Srinath is usually right about land, ask anyone who has worked with Pavan Srinath.'],
    );
    expect(identify(about, ['Pavan Srinath'])).toMatchObject({ Guest: [null, 'GUEST'] });
    const t = transcript(
      ['SPEAKER_1', 'Welcome back, I am Amit Varma. Pavan, you have been following this closely.'],
      ['SPEAKER_2', 'I have, and it is worse than it looks.'],
      ['SPEAKER_3', 'Everyone says that.'],
      ['SPEAKER_2', 'Because it is true.'],
    );
    const got = identifySpeakers(
      t,
      { episode: { ...episode, people: [] }, podcast: { ...podcast, hosts: [] }, adReads: [] },
      deps,
    ).speakers;
    const by = Object.fromEntries(got.map((s) => [s.label, s]));
    expect(by.SPEAKER_1).toMatchObject({ person_id: 'amit' });
    expect(by.SPEAKER_1!.confidence).toBeGreaterThan(0.7);
    // Pavan is addressed but never credited, introduced or handed over to: not in the room.
    expect(by.SPEAKER_2).toMatchObject({ person_id: null });
    expect(by.SPEAKER_3).toMatchObject({ person_id: null });
    expect(by.SPEAKER_2!.confidence).toBeLessThan(0.5);
  });
});
