import { describe, expect, it } from 'vitest';
import { detectMentions, type EpisodeFacts } from '../../processors/mentions/detect.ts';
import { Gazetteer } from '../../processors/mentions/gazetteer.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';
import type { Entity, EpisodePublished, Transcript } from '../../schemas/generated/index.ts';

/**
 * Issue 21, cases 2 and 3, from synthetic lines that reproduce what real speech-to-text does:
 * disambiguation decided per alias (a distinctive alias needs no context, an ambiguous one is read
 * in its sentence, its neighbourhood and its episode), lower-case transcripts, and names the
 * transcriber misspells (known variants, phonetic matches).
 */
const base = loadExample('Entity') as Entity;
const episode = loadExample('EpisodePublished') as EpisodePublished;

function entity(id: string, kind: Entity['kind'], name: string, extra: Partial<Entity> = {}): Entity {
  return {
    ...base,
    id,
    slug: id,
    kind,
    name,
    aliases: [],
    nicknames: [],
    handles: [],
    context_terms: [],
    variants: [],
    company: null,
    person: null,
    category: { slug: kind === 'PERSON' ? 'journalists' : 'technology', name: 'x' },
    ...extra,
  };
}

const meta = entity('meta', 'COMPANY', 'Meta Platforms', {
  aliases: ['Meta', 'Facebook'],
  context_terms: ['zuckerberg', 'instagram', 'whatsapp', 'social media'],
});
const apple = entity('apple', 'COMPANY', 'Apple Inc.', { context_terms: ['iphone', 'mac', 'app store'] });
const amazon = entity('amazon', 'COMPANY', 'Amazon', { context_terms: ['kindle', 'prime', 'e-commerce'] });
const microsoft = entity('microsoft', 'COMPANY', 'Microsoft');
const inc = entity('inc', 'KNOWLEDGE_GRAPH_ENTITY', 'Indian National Congress', {
  aliases: ['Congress'],
  context_terms: ['bjp', 'party', 'election', 'nehru', 'gandhi'],
  category: { slug: 'political-parties', name: 'Political parties' },
});
const usCongress = entity('us-congress', 'KNOWLEDGE_GRAPH_ENTITY', 'United States Congress', {
  aliases: ['Congress'],
  context_terms: ['us', 'senate', 'washington', 'american'],
  category: { slug: 'legislatures', name: 'Legislatures' },
});
const partition = entity('partition', 'KNOWLEDGE_GRAPH_ENTITY', 'Partition of India', {
  aliases: ['Partition', 'the Partition'],
  context_terms: ['1947', 'pakistan', 'refugees', 'punjab', 'lahore', 'border'],
  category: { slug: 'events', name: 'Events' },
});
const host = entity('host', 'PERSON', 'Amit Varma', { variants: ['Amit Verma'] });
const guest = entity('guest', 'PERSON', 'Pavan Srinath');
const ivm = entity('ivm', 'COMPANY', 'IVM Podcasts', {
  aliases: ['IVM'],
  variants: ['IBM', 'IBM Podcast'],
  category: { slug: 'media', name: 'Media' },
});
const ibm = entity('ibm', 'COMPANY', 'IBM', { context_terms: ['computer', 'mainframe', 'software'] });
const gandhi = entity('gandhi', 'PERSON', 'Mahatma Gandhi', {
  aliases: ['Gandhi'],
  context_terms: ['satyagraha', 'non-violence', 'salt march'],
});

function gazetteer(...entities: Entity[]): Gazetteer {
  const g = new Gazetteer();
  for (const e of entities) g.add(e);
  return g;
}

function transcriptOf(...texts: string[]): Transcript {
  return {
    episode_id: episode.id,
    language: 'en',
    transcribed_at: 0,
    lines: texts.map((text, i) => ({
      number: i + 1,
      speaker: i % 2 === 0 ? 'Amit Varma' : 'Guest',
      text,
      role: null,
      start_seconds: i * 30,
      end_seconds: i * 30 + 29,
      words: null,
    })),
  };
}

const facts = (categories: string[] = ['business']): EpisodeFacts => ({
  episode: { ...episode, title: 'A conversation', description: null, people: [] },
  podcastCategories: categories,
  hostIds: [],
  adReads: [],
});

const found = (t: Transcript, g: Gazetteer, categories?: string[]) =>
  detectMentions(t, facts(categories), g, 0).mentions.map((m) => [m.line_number, m.entity_id, m.variant]);

describe('case 2: disambiguation per alias', () => {
  it('takes a distinctive alias in any case while the ambiguous one waits for context', () => {
    const t = transcriptOf(
      'Honestly I deleted my facebook account years ago and I do not miss it at all.',
      'There is a meta point here about how we argue, which is worth making.',
      'Facebook bought Instagram, and Meta is what they call themselves now.',
    );
    expect(found(t, gazetteer(meta))).toEqual([
      [1, 'meta', 'facebook'],
      [3, 'meta', 'Facebook'],
      [3, 'meta', 'Meta'],
    ]);
  });

  it('does not take a brand said as a verb: "to Google him", "you can google it"', () => {
    const google = entity('google', 'COMPANY', 'Google');
    const t = transcriptOf(
      'He is a futurist, and I urge you to Google him and read his essays.',
      'There is a story about it, you can google it.',
      'I do not know what that is. I will have to Google it to find out.',
      'The talent went from Yahoo to Google, and from Amazon to Google it was the same story.',
      'He sold his firm to Google. Google bought it for the maps.',
    );
    expect(found(t, gazetteer(google))).toEqual([
      [4, 'google', 'Google'],
      [4, 'google', 'Google'],
      [5, 'google', 'Google'],
      [5, 'google', 'Google'],
    ]);
  });

  it('lets entities named together support each other: "Apple, Amazon, Microsoft"', () => {
    const t = transcriptOf(
      'The big firms of the last twenty years, Apple, Amazon, Microsoft, all started in a garage somewhere.',
      'An apple a day, my grandmother would say, as she walked along the river.',
    );
    expect(found(t, gazetteer(apple, amazon, microsoft))).toEqual([
      [1, 'apple', 'Apple'],
      [1, 'amazon', 'Amazon'],
      [1, 'microsoft', 'Microsoft'],
    ]);
  });

  it('chooses between entities sharing "Congress" by what is said around it and by the episode', () => {
    const t = transcriptOf(
      'The Congress lost the election badly, and the BJP swept the north of the country.',
      'In America anyone can just stand for Congress or for the Senate, it is a different system.',
      'And I think a lot of Congress supporters behave as if history began in 2014, which is strange.',
      'Nehru and the party built that coalition over decades, through every election they fought.',
    );
    expect(found(t, gazetteer(inc, usCongress), ['politics'])).toEqual([
      [1, 'inc', 'Congress'],
      [2, 'us-congress', 'Congress'],
      [3, 'inc', 'Congress'],
    ]);
  });

  it('reads a lower-case event by its sentence and by the episode, not by capitals', () => {
    const t = transcriptOf(
      'My grandparents crossed the border in 1947, and partition was never spoken about at home.',
      'We spoke to refugees in Punjab and in Lahore for the book, dozens of them over the years.',
      'She has written that remarkable book on partition, and it stayed with me for weeks.',
      'You could partition the hard drive into two halves, and that is what the engineer suggested.',
      'And then came a partition of the house between the brothers, wall and all.',
    );
    expect(found(t, gazetteer(partition))).toEqual([
      [1, 'partition', 'partition'],
      [3, 'partition', 'partition'],
    ]);
  });

  it('reads a transcript written all in lower case by vocabulary and company, not by capitals', () => {
    // No line has a capital, so "congress" and "amazon" written small say nothing either way:
    // the party's vocabulary ("party", "election"), the firms named beside it and the sentence
    // decide; the ordinary uses stay out.
    const t = transcriptOf(
      'the congress party lost the election badly and the bjp swept the north',
      'firms like google and amazon and microsoft changed how we shop and work',
      'we walked along the river and picked an apple from the tree by the water',
      'there was a congress of doctors in the city that week, hundreds of them in one hall',
      'honestly i deleted my facebook account years ago',
    );
    const google = entity('google', 'COMPANY', 'Google');
    expect(found(t, gazetteer(inc, amazon, apple, microsoft, google, meta), ['politics'])).toEqual([
      [1, 'inc', 'congress'],
      [2, 'google', 'google'],
      [2, 'amazon', 'amazon'],
      [2, 'microsoft', 'microsoft'],
      [5, 'meta', 'facebook'],
    ]);
  });

  it('keeps a surname that belongs to someone else out: "Rahul Gandhi", "Frontier Gandhi"', () => {
    const t = transcriptOf(
      'Rahul Gandhi spoke at the rally, and nobody quite knew what to make of it.',
      'He was called Frontier Gandhi. It did not come from Gandhi, it came from within.',
    );
    expect(found(t, gazetteer(gandhi))).toEqual([[2, 'gandhi', 'Gandhi']]);
  });

  it('labels an entity on_target by the mentions the evidence accepts, in any case', () => {
    // A distinctive alias written small on three lines is on target; an ambiguous alias that the
    // evidence accepts once is incidental, and its ordinary uses do not add up to three.
    const t = transcriptOf(
      'i spend too long on facebook every evening, it is a problem.',
      'My kids are on facebook too, and on Instagram, which they own.',
      'So we all agreed to leave facebook for a month, as an experiment.',
      'Apple makes the iPhone, and the App Store takes its cut of every sale.',
      'An apple a day, they say.',
      'She cut the apple in half and gave me the bigger piece.',
    );
    const { entities } = detectMentions(t, facts(), gazetteer(meta, apple), 0);
    expect(entities.map((e) => [e.entity_id, e.relevance, e.mention_count])).toEqual([
      ['meta', 'on_target', 3],
      ['apple', 'incidental', 1],
    ]);
  });

  it('counts only accepted mentions for on_target: rejected ordinary words do not make an entity relevant', () => {
    const t = transcriptOf(
      'We need a meta view of this.',
      'That is a meta question, really.',
      'Going meta again, are we.',
    );
    expect(detectMentions(t, facts(), gazetteer(meta), 0).entities).toEqual([]);
  });
});

describe('case 3: names the transcriber misspells', () => {
  it('matches a known variant and keeps the variant that matched', () => {
    const t = transcriptOf('You can follow me on Twitter at Amit Verma, and do check out the show notes.');
    const [m] = detectMentions(t, facts(), gazetteer(host), 0).mentions;
    expect(m).toMatchObject({
      entity_id: 'host',
      variant: 'Amit Verma',
      matched: 'Amit Verma',
      match: 'variant',
    });
  });

  it('matches a multi-word person name by sound when one word is spelled right', () => {
    const t = transcriptOf(
      'Pawan Srinath and I go back a long way, to the first episode of this show.',
      'Pawan came back again last week.',
    );
    const mentions = detectMentions(t, facts(), gazetteer(guest), 0).mentions;
    expect(mentions.map((m) => [m.line_number, m.variant, m.matched, m.match])).toEqual([
      [1, 'Pawan Srinath', 'Pavan Srinath', 'phonetic'],
    ]);
  });

  it('reads a variant that is another entity’s name by its neighbourhood ("IBM" for the network)', () => {
    const t = transcriptOf(
      'Welcome to the IBM Podcast Network.',
      'Hey, it has been another great week on IBM. Follow IBM Podcast on social media.',
      'He worked as a consultant with firms like IBM, selling mainframe software to banks.',
    );
    const mentions = detectMentions(t, facts(), gazetteer(ivm, ibm), 0).mentions;
    expect(mentions.map((m) => [m.line_number, m.entity_id, m.variant, m.match])).toEqual([
      [1, 'ivm', 'IBM Podcast', 'variant'],
      [2, 'ivm', 'IBM', 'variant'],
      [2, 'ivm', 'IBM Podcast', 'variant'],
      [3, 'ibm', 'IBM', 'name'],
    ]);
  });
});
