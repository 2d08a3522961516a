import { AdvertisingQueries } from './advertising-queries.ts';
import type { AnalyticsStore } from './analytics-store.ts';
import { ChartQueries } from './chart-queries.ts';
import { EpisodeQueries } from './episode-queries.ts';
import { GuestQueries } from './guest-queries.ts';
import { MentionQueries } from './mention-queries.ts';
import { PlacementQueries } from './placement-queries.ts';
import { RatingQueries } from './rating-queries.ts';
import { TopicQueries } from './topic-queries.ts';

/** The query services over the analytics store, built once and given to the API's routes. */
export interface AnalyticsReads {
  mentions: MentionQueries;
  episodes: EpisodeQueries;
  charts: ChartQueries;
  ads: AdvertisingQueries;
  placements: PlacementQueries;
  guests: GuestQueries;
  topics: TopicQueries;
  ratings: RatingQueries;
}

export function analyticsReads(store: AnalyticsStore): AnalyticsReads {
  return {
    mentions: new MentionQueries(store),
    episodes: new EpisodeQueries(store),
    charts: new ChartQueries(store),
    ads: new AdvertisingQueries(store),
    placements: new PlacementQueries(store),
    guests: new GuestQueries(store),
    topics: new TopicQueries(store),
    ratings: new RatingQueries(store),
  };
}
