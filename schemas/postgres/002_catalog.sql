-- Catalog projection: publishers, podcasts, entities and episodes as the catalog topics say,
-- for resolving references (slug, id, directory id, domain) and for catalog reads.

CREATE TABLE catalog_publishers (
  id text PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  name text NOT NULL,
  description text,
  website_url text,
  image_url text,
  updated_at timestamptz NOT NULL
);

CREATE TABLE catalog_podcasts (
  id text PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  directory_id int8 UNIQUE,
  title text NOT NULL,
  description text,
  publisher_id text,
  language text NOT NULL,
  categories jsonb NOT NULL DEFAULT '[]',
  hosts text[] NOT NULL DEFAULT '{}',
  image_url text,
  feed_url text,
  website_url text,
  content_advisory_rating text,
  popularity double precision,
  updated_at timestamptz NOT NULL
);
CREATE INDEX catalog_podcasts_publisher ON catalog_podcasts (publisher_id);

CREATE TABLE catalog_entities (
  id text PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  kind text NOT NULL,
  name text NOT NULL,
  description text,
  wikipedia_url text,
  image_url text,
  category_slug text NOT NULL,
  category_name text NOT NULL,
  aliases text[] NOT NULL DEFAULT '{}',
  nicknames text[] NOT NULL DEFAULT '{}',
  handles text[] NOT NULL DEFAULT '{}',
  context_terms text[] NOT NULL DEFAULT '{}',
  company_domain text,
  company_ticker text,
  person jsonb,
  updated_at timestamptz NOT NULL
);
CREATE INDEX catalog_entities_domain ON catalog_entities (lower(company_domain));
CREATE INDEX catalog_entities_category ON catalog_entities (category_slug);

CREATE TABLE catalog_episodes (
  id text PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  podcast_id text NOT NULL,
  guid text,
  title text NOT NULL,
  description text,
  published_at timestamptz NOT NULL,
  duration_seconds double precision,
  audio_url text,
  image_url text,
  language text,
  people jsonb NOT NULL DEFAULT '[]',
  source text NOT NULL
);
CREATE INDEX catalog_episodes_podcast ON catalog_episodes (podcast_id, published_at DESC, id);
CREATE INDEX catalog_episodes_published ON catalog_episodes (published_at, id);
