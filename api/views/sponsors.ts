import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { EntityRow } from '../../projections/catalog/catalog-reader.ts';
import { Timestamp } from '../schemas.ts';

/**
 * The sponsor object (spec: Trending sponsor row, `sponsor`) shared by sponsor trends, the
 * sponsor directory and one sponsor's read, and the company record it carries.
 */
export const CompanySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  domain: Type.Union([Type.String(), Type.Null()]),
  image_mode: Type.String({ description: 'AUTOMATIC: the image comes from the catalog' }),
  image_url: Type.Union([Type.String(), Type.Null()]),
  slug: Type.String(),
  ticker: Type.Union([Type.String(), Type.Null()]),
});

export const SponsorSchema = Type.Object({
  id: Type.String({
    description:
      'the company ID when the sponsor is a known company, otherwise `sp_` and 12 hex digits derived from its name',
  }),
  name: Type.String(),
  ad_count: Type.Integer({ description: 'all-time ads (network promos excluded)' }),
  episode_reach: Type.Integer(),
  podcast_reach: Type.Integer(),
  first_seen_at: Timestamp,
  last_seen_at: Timestamp,
  company: Type.Union([CompanySchema, Type.Null()]),
});

export function sponsorCompany(e: EntityRow) {
  return {
    id: e.id,
    name: e.name,
    description: e.description,
    domain: e.company_domain,
    image_mode: 'AUTOMATIC',
    image_url: e.image_url,
    slug: e.slug,
    ticker: e.company_ticker,
  };
}

/** Sponsors that are not catalog companies get a stable id from their key (`sp_` + 12 hex). */
export function sponsorId(key: string, companyId: string): string {
  return companyId || `sp_${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}
