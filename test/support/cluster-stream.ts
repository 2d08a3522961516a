import { transcriptOf } from './alerts.ts';

/** Records of the cluster's engine test and bench: a podcast, a company, episodes naming it. */
/** The podcast and the company the stream's episodes name. */
export function streamCatalog(podcastId: string, run: string) {
  return [
    {
      type: 'podcast',
      data: {
        id: podcastId,
        slug: `cluster-hour-${run}`,
        directory_id: null,
        title: 'The Cluster Hour',
        description: null,
        publisher_id: null,
        language: 'en-US',
        categories: [],
        hosts: [],
        image_url: null,
        feed_url: null,
        website_url: null,
        content_advisory_rating: null,
        popularity: 50,
        updated_at: Date.now(),
      },
    },
    {
      type: 'entity',
      data: {
        id: 'ent_c_northwind',
        slug: 'northwind-robotics',
        kind: 'COMPANY',
        name: 'Northwind Robotics',
        description: null,
        wikipedia_url: null,
        image_url: null,
        category: { slug: 'technology', name: 'Technology' },
        aliases: ['Northwind Robotics'],
        nicknames: [],
        handles: [],
        context_terms: ['shares', 'earnings'],
        company: { domain: 'northwind-robotics.example', ticker: 'NWRB' },
        person: null,
        updated_at: Date.now(),
      },
    },
  ];
}

/**
 * One episode and its transcript (8 lines naming Northwind Robotics twice, plus `extraLines`
 * ordinary lines), as HTTP batch ingest records.
 */
export function streamEpisode(podcastId: string, id: string, i: number, extraLines = 0) {
  const texts = [
    'Welcome back to the show, I am your host.',
    'Joining me today is our guest from the trading desk.',
    'Northwind Robotics shares jumped after the earnings call.',
    'Why do you think the market reacted that way?',
    'Margins improved. Northwind Robotics finally ships the new arm.',
    'And the guidance for next year?',
    `Episode number ${i} of the cluster run.`,
    ...Array.from({ length: extraLines }, (_, k) => `And another thought, number ${k}, on how markets move.`),
    'Thanks for listening.',
  ];
  return [
    {
      type: 'episode',
      data: {
        id,
        slug: `${id}-slug`,
        podcast_id: podcastId,
        guid: id,
        title: `Robots and markets ${i}`,
        description: null,
        published_at: Date.now() - 10 * 60_000,
        duration_seconds: 48,
        audio_url: `https://cdn.example/${id}.mp3`,
        image_url: null,
        language: null,
        people: [],
        source: 'feed',
      },
    },
    { type: 'transcript', data: transcriptOf(id, texts) },
    // One segment over the whole transcript: the search index writes an episode's lines once its
    // episode, transcript and segments events are all there.
    {
      type: 'segments',
      data: {
        episode_id: id,
        segments: [
          {
            id: `seg_${id}_1`,
            number: 1,
            title: 'The whole show',
            type: 'TOPIC_DISCUSSION',
            start_seconds: 0,
            end_seconds: texts.length * 6,
            first_line: 1,
            last_line: texts.length,
            description: null,
            summary: null,
            audio_url: null,
            read_type: null,
          },
        ],
      },
    },
  ];
}
