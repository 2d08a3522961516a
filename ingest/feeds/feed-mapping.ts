import Parser from 'rss-parser';
import type { EpisodePublished, Podcast } from '../../schemas/generated/index.ts';
import { nameSlug } from '../../schemas/text-folding.ts';
import { hash32, stableId } from '../corpus/rng.ts';

/**
 * RSS and Atom feeds to events, without I/O: the channel becomes a Podcast (its id derived from
 * the feed URL, so every poller agrees on it), each item an EpisodePublished (id derived from the
 * feed URL and the item guid, or its link or title when it has no guid). `podcast:person` tags
 * (Podcasting 2.0) of the channel and of the item become the episode's credited people.
 */
interface XmlNode {
  _?: string;
  $?: Record<string, string>;
}

type PersonNode = string | XmlNode;

export interface ParsedItem {
  guid?: string;
  id?: string;
  link?: string;
  title?: string;
  content?: string;
  contentSnippet?: string;
  summary?: string;
  isoDate?: string;
  pubDate?: string;
  enclosure?: { url: string; type?: string };
  itunes?: { duration?: string; image?: string; summary?: string };
  persons?: PersonNode[];
}

export interface ParsedFeed {
  title?: string;
  description?: string;
  link?: string;
  language?: string;
  image?: { url?: string };
  itunes?: { image?: string; explicit?: string; categories?: string[]; author?: string };
  persons?: PersonNode[];
  items: ParsedItem[];
}

const parser = new Parser<Omit<ParsedFeed, 'items'>, ParsedItem>({
  customFields: {
    feed: [['podcast:person', 'persons', { keepArray: true }] as never, 'language' as never],
    item: [['podcast:person', 'persons', { keepArray: true }]],
  },
});

export async function parseFeed(xml: string): Promise<ParsedFeed> {
  return (await parser.parseString(xml)) as unknown as ParsedFeed;
}

export function podcastIdForFeed(url: string): string {
  return stableId('pod_', `feed:${url}`, 10);
}

export function episodeIdFor(url: string, guid: string): string {
  return stableId('ep_', `feed:${url}#${guid}`, 10);
}

export function itemGuid(item: ParsedItem): string | null {
  const guid = item.guid ?? item.id ?? item.link ?? item.enclosure?.url ?? item.title;
  return guid ? String(guid).trim() : null;
}

function people(nodes: PersonNode[] | undefined, defaultRole: string): EpisodePublished['people'] {
  const out: EpisodePublished['people'] = [];
  for (const n of nodes ?? []) {
    const name = (typeof n === 'string' ? n : (n._ ?? '')).trim();
    if (!name) continue;
    const role = (typeof n === 'string' ? undefined : n.$?.role)?.trim().toLowerCase() || defaultRole;
    out.push({ name, role });
  }
  return out;
}

/** `1:02:03`, `62:03` or `3723` seconds. */
export function parseDuration(text: string | undefined): number | null {
  if (!text) return null;
  const parts = text.trim().split(':').map(Number);
  if (parts.some((p) => !Number.isFinite(p))) return null;
  return parts.reduce((s, p) => s * 60 + p, 0);
}

function stripHtml(text: string | undefined): string | null {
  if (!text) return null;
  const t = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return t.length > 0 ? t.slice(0, 4000) : null;
}

export function podcastFromFeed(url: string, feed: ParsedFeed, now: number): Podcast {
  const title = feed.title?.trim() || url;
  const categories = (feed.itunes?.categories ?? []).map((c) => ({
    slug: nameSlug(c),
    name: c,
    parent_slug: null,
  }));
  const explicit = feed.itunes?.explicit?.toLowerCase();
  return {
    id: podcastIdForFeed(url),
    slug: `${nameSlug(title).slice(0, 60) || 'podcast'}-${hash32(url).toString(16).slice(0, 6)}`,
    directory_id: null,
    title,
    description: stripHtml(feed.description),
    publisher_id: null,
    language: feed.language?.trim() || 'en',
    categories: categories.filter((c, i) => c.slug && categories.findIndex((x) => x.slug === c.slug) === i),
    hosts: [],
    image_url: feed.itunes?.image ?? feed.image?.url ?? null,
    feed_url: url,
    website_url: feed.link ?? null,
    content_advisory_rating:
      explicit === 'yes' || explicit === 'true' ? 'explicit' : explicit ? 'clean' : null,
    popularity: null,
    updated_at: now,
  };
}

export function episodeFromItem(
  url: string,
  feed: ParsedFeed,
  item: ParsedItem,
  now: number,
): EpisodePublished | null {
  const guid = itemGuid(item);
  if (!guid) return null;
  const published = Date.parse(item.isoDate ?? item.pubDate ?? '');
  const title = item.title?.trim() || guid;
  const id = episodeIdFor(url, guid);
  const credited = [...people(feed.persons, 'host'), ...people(item.persons, 'guest')];
  return {
    id,
    slug: `${nameSlug(title).slice(0, 60) || 'episode'}-${id.slice(3, 9)}`,
    podcast_id: podcastIdForFeed(url),
    guid,
    title,
    description: stripHtml(item.contentSnippet ?? item.content ?? item.summary ?? item.itunes?.summary),
    published_at: Number.isFinite(published) ? published : now,
    duration_seconds: parseDuration(item.itunes?.duration),
    audio_url: item.enclosure?.url ?? null,
    image_url: item.itunes?.image ?? null,
    language: null,
    people: credited.filter((p, i) => credited.findIndex((q) => q.name === p.name) === i),
    source: 'feed',
  };
}

/** A fingerprint of the channel fields a Podcast record carries, to republish only on change. */
export function podcastHash(p: Podcast): string {
  return hash32(JSON.stringify({ ...p, updated_at: 0 })).toString(16);
}
