import { describe, expect, it } from 'vitest';
import { detectMentions, type EpisodeFacts } from '../../processors/mentions/detect.ts';
import { Gazetteer } from '../../processors/mentions/gazetteer.ts';
import { tokenize } from '../../processors/mentions/tokenize.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';
import type {
  AdReads,
  Entity,
  EpisodePublished,
  MentionsDetected,
  Transcript,
} from '../../schemas/generated/index.ts';

const apple = loadExample('Entity') as Entity;
const episode = loadExample('EpisodePublished') as EpisodePublished;
const transcriptExample = loadExample('Transcript') as Transcript;
const adReads = (loadExample('AdReads') as AdReads).ad_reads;

const person = (id: string, name: string, extra: Partial<Entity> = {}): Entity => ({
  ...apple,
  id,
  slug: id,
  kind: 'PERSON',
  name,
  aliases: [],
  nicknames: [],
  handles: [],
  context_terms: [],
  company: null,
  category: { slug: 'journalists', name: 'Journalists' },
  ...extra,
});
const company = (id: string, name: string, extra: Partial<Entity> = {}): Entity => ({
  ...apple,
  id,
  slug: id,
  name,
  aliases: [],
  nicknames: [],
  handles: [],
  context_terms: [],
  company: null,
  category: { slug: 'finance', name: 'Finance' },
  ...extra,
});

function gazetteer(...entities: Entity[]): Gazetteer {
  const g = new Gazetteer();
  for (const e of entities) g.add(e);
  return g;
}

/** Lines alternate between two speakers; `[speaker, text]` picks the speaker. */
function transcriptOf(...texts: (string | [string, string])[]): Transcript {
  return {
    episode_id: episode.id,
    language: 'en-US',
    transcribed_at: 0,
    lines: texts.map((entry, i) => ({
      number: i + 1,
      speaker: Array.isArray(entry) ? entry[0] : i % 2 === 0 ? 'SPEAKER_1' : 'SPEAKER_2',
      text: Array.isArray(entry) ? entry[1] : entry,
      role: null,
      start_seconds: i * 5,
      end_seconds: i * 5 + 4.5,
      words: null,
    })),
  };
}

const facts = (over: Partial<EpisodeFacts> = {}): EpisodeFacts => ({
  episode: { ...episode, title: 'A quiet week', description: null, people: [] },
  podcastCategories: ['business'],
  hostIds: [],
  adReads: [],
  ...over,
});

describe('tokenisation', () => {
  it('keeps domains, handles, cashtags and hyphenated names whole, and cuts possessives', () => {
    const t = tokenize('Visit apple.com, follow @Apple, buy $AAPL; Coca-Cola’s and Apple’s results.');
    expect(t.map((x) => x.surface)).toEqual([
      'Visit',
      'apple.com',
      'follow',
      '@Apple',
      'buy',
      '$AAPL',
      'Coca-Cola',
      'and',
      'Apple',
      'results',
    ]);
    expect(t.find((x) => x.surface === 'Coca-Cola')!.possessive).toBe(true);
    expect(t.find((x) => x.surface === 'Apple')!.possessive).toBe(true);
  });
});

describe('mention detection', () => {
  it('reproduces the golden MentionsDetected example from the golden transcript, entity, episode and ad reads', () => {
    const result = detectMentions(
      transcriptExample,
      { episode, podcastCategories: ['business', 'investing'], hostIds: ['ent_p_4410'], adReads },
      gazetteer(apple),
      1763683200000,
    );
    expect(result).toEqual(loadExample('MentionsDetected') as MentionsDetected);
  });

  it('matches names, aliases, tickers, cashtags, domains, handles and nicknames, with possessives', () => {
    const harbor = company('ent_c_harbor', 'Harbor Ridge Capital', {
      aliases: ['Harbor Ridge'],
      nicknames: ['the Ridge Boys'],
      handles: ['@HarborRidge'],
      company: { domain: 'harborridge.com', ticker: 'HRCP' },
    });
    const t = transcriptOf(
      'Harbor Ridge Capital reported on Tuesday.',
      'Harbor Ridge’s numbers were fine, HRCP closed up and $HRCP trended.',
      'Read it on harborridge.com or www.harborridge.com, or ask @harborridge.',
      'The Ridge Boys did it again.',
    );
    const r = detectMentions(t, facts(), gazetteer(harbor), 0);
    expect(r.mentions.map((m) => [m.line_number, m.variant])).toEqual([
      [1, 'Harbor Ridge Capital'],
      [2, 'Harbor Ridge'],
      [2, 'HRCP'],
      [2, '$HRCP'],
      [3, 'harborridge.com'],
      [3, 'www.harborridge.com'],
      [3, '@harborridge'],
      [4, 'The Ridge Boys'],
    ]);
    const line2 = t.lines[1]!.text;
    const m = r.mentions[1]!;
    expect(line2.slice(m.char_start, m.char_end)).toBe('Harbor Ridge');
    expect(r.entities).toEqual([
      {
        entity_id: 'ent_c_harbor',
        relevance: 'on_target',
        mention_count: 8,
        variants: [
          'Harbor Ridge Capital',
          'Harbor Ridge',
          'HRCP',
          '$HRCP',
          'harborridge.com',
          'www.harborridge.com',
          '@harborridge',
          'The Ridge Boys',
        ],
      },
    ]);
  });

  it('applies word boundaries and case rules: tickers exact, an ambiguous word by how it is used', () => {
    const harbor = company('ent_c_harbor', 'Harbor Ridge Capital', {
      company: { domain: null, ticker: 'HRCP' },
    });
    const t = transcriptOf(
      'hrcp is not a ticker when lowercase, and Harbor Ridges is another word.',
      'We baked an apple crumble, and Applebee is no fruit either.',
      'Applebee is not the company, but Apple is.',
    );
    const r = detectMentions(t, facts(), gazetteer(harbor, apple), 0);
    // "Apple" written as a name inside a sentence is the company; "an apple crumble" is not.
    expect(r.mentions.map((m) => [m.line_number, m.variant])).toEqual([[3, 'Apple']]);
  });

  it('tells Apple the company from apple the fruit by context, nearby lines and the rest of the episode', () => {
    const t = transcriptOf(
      ['SPEAKER_1', 'Apple pie with vanilla ice cream is the perfect dessert.'],
      ['SPEAKER_2', 'My grandmother swears by it.'],
      ['SPEAKER_1', 'Meanwhile, Apple sold fewer iPhones in China this quarter.'],
      ['SPEAKER_2', 'Apple did it again.'],
      ['SPEAKER_2', 'Another record quarter, and iPhone revenue carried the whole thing.'],
      ['SPEAKER_1', 'Apple orchards upstate had a great harvest.'],
    );
    const r = detectMentions(t, facts({ podcastCategories: ['technology'] }), gazetteer(apple), 0);
    expect(r.mentions.map((m) => m.line_number)).toEqual([3, 4]);
  });

  it('in a line written without capitals, takes an ambiguous word only with context in that line', () => {
    const t = transcriptOf(
      'developers are furious with apple over the app store fees.',
      'we went apple picking with the kids on sunday.',
      'apple did it again.',
    );
    const r = detectMentions(t, facts({ podcastCategories: ['technology'] }), gazetteer(apple), 0);
    expect(r.mentions.map((m) => [m.line_number, m.variant])).toEqual([[1, 'apple']]);
  });

  it('flags lines inside ad reads, by line range or by time when an ad read has no lines', () => {
    const harbor = company('ent_c_harbor', 'Harbor Ridge Capital', { aliases: ['Harbor Ridge'] });
    const t = transcriptOf(
      'Harbor Ridge is great.',
      'This episode is brought to you by Harbor Ridge.',
      'Harbor Ridge, again.',
      'Back to Harbor Ridge.',
    );
    const base = {
      id: 'ad1',
      segment_id: null,
      sponsor_name: 'Harbor Ridge',
      company_id: 'ent_c_harbor',
      read_type: 'host_read' as const,
      is_network_promo: false,
    };
    const r = detectMentions(
      t,
      facts({
        adReads: [
          { ...base, start_seconds: 5, end_seconds: 9.5, first_line: 2, last_line: 2 },
          { ...base, id: 'ad2', start_seconds: 10, end_seconds: 14.5, first_line: null, last_line: null },
        ],
      }),
      gazetteer(harbor),
      0,
    );
    expect(r.mentions.map((m) => m.in_ad)).toEqual([false, true, true, false]);
    // Two lines outside ads: a passing mention.
    expect(r.entities[0]!.relevance).toBe('incidental');
  });

  it('labels on_target: repeated (3 lines), in the title or description, or a credited guest; else incidental', () => {
    const harbor = company('ent_c_harbor', 'Harbor Ridge Capital', { aliases: ['Harbor Ridge'] });
    const marcus = person('ent_p_marcus', 'Marcus Oyelaran');
    const dana = person('ent_p_dana', 'Dana Whitfield');
    const g = gazetteer(harbor, marcus, dana);
    const once = transcriptOf(
      'I’m Dana Whitfield.',
      'Joining me is Marcus Oyelaran.',
      'Harbor Ridge reported.',
    );
    const rel = (r: ReturnType<typeof detectMentions>) =>
      Object.fromEntries(r.entities.map((e) => [e.entity_id, e.relevance]));
    expect(rel(detectMentions(once, facts(), g, 0))).toEqual({
      ent_p_dana: 'incidental',
      ent_p_marcus: 'incidental',
      ent_c_harbor: 'incidental',
    });
    const credited = facts({
      episode: {
        ...episode,
        title: 'Inside Harbor Ridge',
        description: 'Dana Whitfield talks with Marcus Oyelaran.',
        people: [
          { name: 'Dana Whitfield', role: 'host' },
          { name: 'Marcus Oyelaran', role: 'guest' },
        ],
      },
    });
    expect(rel(detectMentions(once, credited, g, 0))).toEqual({
      ent_p_dana: 'incidental',
      ent_p_marcus: 'on_target',
      ent_c_harbor: 'on_target',
    });
    const repeated = transcriptOf(
      'Harbor Ridge reported.',
      'Harbor Ridge again.',
      'And Harbor Ridge once more.',
    );
    expect(rel(detectMentions(repeated, facts(), g, 0))).toEqual({ ent_c_harbor: 'on_target' });
  });

  it('updates the automaton when an entity changes or is removed', () => {
    const g = gazetteer(company('ent_c_1', 'Velora Systems', { aliases: ['Velora'] }));
    const t = transcriptOf('Velora shipped it, Quintara did not.');
    expect(detectMentions(t, facts(), g, 0).mentions.map((m) => m.variant)).toEqual(['Velora']);
    g.add(company('ent_c_1', 'Quintara Labs', { aliases: ['Quintara'] }));
    expect(detectMentions(t, facts(), g, 0).mentions.map((m) => m.variant)).toEqual(['Quintara']);
    g.remove('ent_c_1');
    expect(detectMentions(t, facts(), g, 0).mentions).toEqual([]);
    expect(g.size).toBe(0);
  });
});
