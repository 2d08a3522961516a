import type { Catalog, GenCompany, GenPodcast } from './catalog.ts';
import type { Participant } from './episode-cast.ts';
import type { Phrasing } from './episode-phrasing.ts';
import type { Fill } from './episode-pieces.ts';
import type { EpisodeRecorder } from './episode-recorder.ts';
import type { Rng } from './rng.ts';
import type { LanguagePack } from './vocabulary/types.ts';

/** The ad breaks of an episode: sponsor reads and network promos, recorded as ad reads. */
export class AdBreaks {
  private readonly pack: LanguagePack;

  constructor(
    private readonly rng: Rng,
    private readonly show: GenPodcast,
    private readonly catalog: Catalog,
    private readonly words: Phrasing,
    private readonly rec: EpisodeRecorder,
  ) {
    this.pack = show.pack;
  }

  /** A sponsor's ad read, by a host or pre-recorded, with the show's promo code. */
  sponsor(host: Participant, voice: Participant, sponsor: GenCompany): void {
    const { rng, pack } = this;
    const readType = rng.chance(0.6) ? ('host_read' as const) : ('pre_recorded' as const);
    const code = `${this.show.podcast.slug
      .replace(/[^a-z]/g, '')
      .slice(0, 6)
      .toUpperCase()}${rng.int(10, 99)}`;
    const slots = (): Record<string, Fill | string | null> => ({
      sponsor: { text: rng.chance(0.6) ? sponsor.entity.name : sponsor.brand, entityId: sponsor.entity.id },
      domain: { text: sponsor.entity.company!.domain!, entityId: sponsor.entity.id },
      code,
    });
    this.rec.inAd = true;
    const seg = this.rec.segment(
      'AD',
      rng.pick(pack.segmentTitles.AD),
      () => {
        if (readType === 'host_read') {
          const lines = rng.sample(pack.adHostRead, rng.int(2, 3));
          for (const l of lines) this.rec.say(host, this.words.tpl(l, slots()));
          this.rec.say(host, this.words.tpl(rng.pick(pack.adHostReadClose), slots()));
        } else {
          for (const l of rng.sample(pack.adPreRecorded, 2)) this.rec.say(voice, this.words.tpl(l, slots()));
        }
      },
      { readType },
    );
    this.rec.inAd = false;
    if (seg) this.rec.recordAd(seg, sponsor.entity.name, sponsor.entity.id, readType, false);
  }

  /** A promo for another show of the publisher (a network promo). */
  promo(host: Participant, voice: Participant): void {
    const { rng, pack } = this;
    const siblings = this.catalog.podcasts.filter(
      (p) => p.publisher.id === this.show.publisher.id && p !== this.show && p.lang === this.show.lang,
    );
    const other = siblings.length > 0 ? rng.pick(siblings).podcast.title : this.show.podcast.title;
    const readType = rng.chance(0.5) ? ('host_read' as const) : ('pre_recorded' as const);
    this.rec.inAd = true;
    const seg = this.rec.segment(
      'AD',
      rng.pick(pack.segmentTitles.PROMO),
      () => {
        this.rec.say(
          readType === 'host_read' ? host : voice,
          this.words.tpl(rng.pick(pack.promo), { show: other, publisher: this.show.publisher.name }),
        );
      },
      { readType },
    );
    this.rec.inAd = false;
    if (seg) this.rec.recordAd(seg, this.show.publisher.name, null, readType, true);
  }
}
