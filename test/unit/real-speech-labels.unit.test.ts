import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSchema } from '../../schemas/avro-schemas.ts';

/**
 * The hand-written real-speech evaluation set committed in test/bench/real-speech/ (the corpus
 * itself is not): it must stay consistent with itself, or the bench scores against ids nobody
 * can be detected as. What needs the transcripts (offsets against line text) is checked by the
 * bench's own run.
 */
const file = (name: string) => new URL(`../bench/real-speech/${name}`, import.meta.url);
const ndjson = <T>(name: string): T[] =>
  fs
    .readFileSync(file(name), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);

interface EntityRecord {
  type: string;
  data: { id: string; name: string; kind: string; aliases: string[] };
}
interface Occurrence {
  surface: string;
  char_start: number;
  char_end: number;
  form: string;
}
interface MentionLabel {
  episode_id: string;
  line: number;
  entities: string[];
  mentions: { entity_id: string; occurrences: Occurrence[] }[];
  not_entity: { surface: string; char_start: number; char_end: number }[];
}
interface SpeakerLabel {
  episode_id: string;
  credited_host: string;
  credited_guests: string[];
  host_labels: string[];
  guest_labels: Record<string, string[]>;
  labels: { label: string; person_id: string | null; kind: string }[];
}

const catalog = ndjson<EntityRecord>('catalog.ndjson');
const ids = new Map(catalog.map((r) => [r.data.id, r.data]));
const credits = ndjson<{ episode_id: string; people: { name: string; role: string }[] }>('credits.ndjson');

describe('the committed real-speech evaluation set', () => {
  it('has a catalog of valid entity records with unique ids, the ambiguous ones the bench scores among them', () => {
    const type = loadSchema('Entity').type;
    for (const r of catalog) {
      expect(r.type).toBe('entity');
      expect(type.isValid(type.fromBuffer(type.toBuffer(r.data))), r.data.id).toBe(true);
      expect(r.data.id).toMatch(/^[pck]-[a-z0-9]+(-[a-z0-9]+)*$/);
    }
    expect(ids.size).toBe(catalog.length);
    for (const id of [
      'p-amit-varma',
      'c-ivm-podcasts',
      'c-apple',
      'k-inc',
      'k-us-congress',
      'p-mahatma-gandhi',
    ]) {
      expect(ids.has(id), id).toBe(true);
    }
  });

  it('credits every episode with catalog people, the host first, and lists variants of catalog entities only', () => {
    const names = new Set(catalog.map((r) => r.data.name));
    expect(new Set(credits.map((c) => c.episode_id)).size).toBe(311);
    for (const c of credits) {
      expect(c.people[0], c.episode_id).toEqual({ name: 'Amit Varma', role: 'host' });
      for (const p of c.people) expect(names.has(p.name), `${c.episode_id}: ${p.name}`).toBe(true);
    }
    const variants = JSON.parse(fs.readFileSync(file('entity-variants.json'), 'utf8')) as Record<
      string,
      string[]
    >;
    for (const id of Object.keys(variants)) expect(ids.has(id), id).toBe(true);
  });

  it('labels mentions with catalog ids only, each line its complete set, spans well formed', () => {
    const labels = ndjson<MentionLabel>('mention-labels.ndjson');
    expect(labels.length).toBeGreaterThan(250);
    const seen = new Set<string>();
    for (const m of labels) {
      const where = `${m.episode_id}:${m.line}`;
      expect(seen.has(where), where).toBe(false);
      seen.add(where);
      expect(new Set(m.entities), where).toEqual(new Set(m.mentions.map((x) => x.entity_id)));
      const spans: [number, number][] = [];
      for (const x of m.mentions) {
        expect(ids.has(x.entity_id), `${where} ${x.entity_id}`).toBe(true);
        for (const o of x.occurrences) {
          expect(o.char_end - o.char_start, where).toBe(o.surface.length);
          expect(['name', 'variant', 'unlisted', 'address']).toContain(o.form);
          spans.push([o.char_start, o.char_end]);
        }
      }
      spans.sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < spans.length; i++)
        expect(spans[i]![0], where).toBeGreaterThanOrEqual(spans[i - 1]![1]);
      for (const n of m.not_entity) expect(n.char_end - n.char_start, where).toBe(n.surface.length);
    }
  });

  it('labels speakers against the credits: the credited host and guests, each dominated label a person label', () => {
    const byName = new Map(catalog.map((r) => [r.data.name, r.data.id]));
    const credited = new Map(
      credits.map((c) => [
        c.episode_id,
        c.people.filter((p) => p.role === 'guest').map((p) => byName.get(p.name)),
      ]),
    );
    for (const s of ndjson<SpeakerLabel>('speaker-labels.ndjson')) {
      expect(s.credited_host).toBe('p-amit-varma');
      expect([...s.credited_guests].sort(), s.episode_id).toEqual(
        [...(credited.get(s.episode_id) ?? [])].sort(),
      );
      const labels = new Map(s.labels.map((l) => [l.label, l]));
      expect(labels.size, s.episode_id).toBe(s.labels.length);
      for (const l of s.host_labels)
        expect(labels.get(l)?.person_id, `${s.episode_id} ${l}`).toBe(s.credited_host);
      for (const [guest, own] of Object.entries(s.guest_labels)) {
        for (const l of own) expect(labels.get(l)?.person_id, `${s.episode_id} ${l}`).toBe(guest);
      }
    }
  });
});
