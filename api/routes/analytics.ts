import type { FastifyPluginAsync } from 'fastify';
import type { AnalyticsRouteOptions } from '../views/analytics.ts';
import { advertisingRoutes } from './advertising.ts';
import { biasRoutes } from './bias.ts';
import { catalogRoutes } from './catalog.ts';
import { entityRoutes } from './entities.ts';
import { episodeRoutes } from './episodes.ts';
import { mentionRoutes } from './mentions.ts';
import { rankingRoutes } from './rankings.ts';

/**
 * Every read served from the analytics store and the catalog: mentions, entities, sponsors and
 * ads, rankings, bias, podcasts / publishers / companies / people, episodes and transcripts.
 */
export const analyticsRoutes: FastifyPluginAsync<AnalyticsRouteOptions> = async (app, opts) => {
  await app.register(mentionRoutes, opts);
  await app.register(entityRoutes, opts);
  await app.register(advertisingRoutes, opts);
  await app.register(rankingRoutes, opts);
  await app.register(biasRoutes, opts);
  await app.register(catalogRoutes, opts);
  await app.register(episodeRoutes, opts);
};
