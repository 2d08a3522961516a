import type { Entity } from '../../schemas/generated/index.ts';
import { foldAccents as fold, nameSlug as slugify } from '../../schemas/text-folding.ts';
import { Names, type Naming } from './catalog-names.ts';
import type { GenCompany, GenPerson } from './catalog-types.ts';
import { type Rng, stableId } from './rng.ts';
import { INSTITUTIONS, PACKS } from './vocabulary/index.ts';
import { FIRST_NAMES, SURNAMES } from './vocabulary/names.ts';
import type { OccupationDef } from './vocabulary/occupations.ts';
import type { Lang, TopicId } from './vocabulary/types.ts';

/**
 * The catalog's people: hosts, guests, correspondents and people in the news, each with an
 * occupation, an employer and a unique full name; once all exist, the aliases that are safe.
 */
export class People {
  readonly persons: GenPerson[] = [];
  private readonly fullNames = new Names();
  private readonly personRng: Rng;
  private readonly firstNameSet = new Set(Object.values(FIRST_NAMES).flatMap((l) => l.map(fold)));
  private readonly surnameCount = new Map<string, number>();
  private readonly seed: number;

  constructor(
    rng: Rng,
    private readonly naming: Naming,
    private readonly companies: GenCompany[],
    private readonly updatedAt: number,
  ) {
    this.seed = rng.seed;
    this.personRng = rng.fork('people');
  }

  /** A new person of `lang` in `occupation`, employed by a company of `topic` or an institution. */
  make(
    lang: Lang,
    occupation: OccupationDef,
    label: string,
    topic?: TopicId,
    avoidFirst: string[] = [],
  ): GenPerson {
    let first = '';
    let last = '';
    let full: string | undefined;
    for (let attempt = 0; !full; attempt++) {
      first = this.personRng.pick(FIRST_NAMES[lang]);
      if (avoidFirst.includes(first)) continue;
      last = this.personRng.pick(SURNAMES[lang]);
      const middle = attempt >= 12 ? ` ${String.fromCharCode(65 + this.personRng.int(0, 25))}.` : '';
      full = this.fullNames.take(`${first}${middle} ${last}`);
    }
    this.surnameCount.set(fold(last), (this.surnameCount.get(fold(last)) ?? 0) + 1);
    const companyPool = this.companies.filter((c) => !topic || c.topics.includes(topic));
    const corporate =
      ['executive_founder', 'practitioner'].includes(occupation.capacity) ||
      occupation.slug === 'financial-analyst';
    const employer: GenPerson['employer'] =
      corporate || this.personRng.chance(0.25)
        ? { company: this.personRng.pick(companyPool.length > 0 ? companyPool : this.companies) }
        : {
            institution: this.personRng
              .pick(INSTITUTIONS[lang])
              .replace('{city}', this.personRng.pick(PACKS[lang].cities)),
          };
    const handle = this.personRng.chance(0.55)
      ? `@${fold(first).replace(/[^a-z]/g, '')}${fold(last).replace(/[^a-z]/g, '')}`.slice(0, 16)
      : null;
    const seniority = this.personRng.weighted([
      ['professional', 0.45],
      ['senior', 0.4],
      ['distinguished', 0.15],
    ] as const);
    const standing = this.personRng.weighted([
      ['established', 0.8],
      ['self_described', 0.15],
      ['unverified', 0.05],
    ] as const);
    const employerName = 'company' in employer ? employer.company.entity.name : employer.institution;
    const title = occupation.title[lang];
    const entity: Entity = {
      id: stableId('ent_p_', `${this.seed}/person/${this.persons.length}/${label}`),
      slug: this.naming.uniqueSlug(full),
      kind: 'PERSON',
      name: full,
      description: `${title[0]!.toUpperCase()}${title.slice(1)}, ${employerName}`,
      wikipedia_url: null,
      image_url: `https://img.earshot.example/people/${slugify(full)}.jpg`,
      category: occupation.category,
      aliases: [],
      nicknames: [],
      handles: handle ? [handle] : [],
      context_terms: [],
      variants: [],
      company: null,
      person: {
        title,
        company_id: 'company' in employer ? employer.company.entity.id : null,
        occupation: {
          code: occupation.code,
          system: 'isco08',
          slug: occupation.slug,
          title: occupation.name,
          group: occupation.group,
        },
        field: occupation.field,
        standing,
        seniority,
        practicing: this.personRng.chance(0.9),
      },
      updated_at: this.updatedAt,
    };
    const person: GenPerson = {
      entity,
      first,
      last,
      lang,
      occupation,
      surnameAlias: null,
      nickname: null,
      handle,
      employer,
    };
    this.persons.push(person);
    return person;
  }

  /**
   * Aliases that are safe: a surname unique in the catalog and not an ordinary word, a first name
   * or a brand; nicknames for coaches, doctors and professors.
   */
  giveAliases(): void {
    const nicknames = new Names();
    for (const p of this.persons) {
      const key = fold(p.last);
      if (
        this.surnameCount.get(key) === 1 &&
        !this.naming.vocab.has(key) &&
        !this.firstNameSet.has(key) &&
        !this.naming.brands.has(p.last)
      ) {
        p.surnameAlias = p.last;
        p.entity.aliases = [p.last];
      }
      const prefix =
        p.occupation.slug === 'sports-coach'
          ? 'Coach'
          : p.occupation.slug === 'physician'
            ? 'Doc'
            : p.occupation.capacity === 'researcher' && this.personRng.chance(0.3)
              ? 'Professor'
              : null;
      if (prefix && p.lang === 'en') {
        const nick = nicknames.take(`${prefix} ${p.last}`);
        if (nick && this.surnameCount.get(key) === 1) {
          p.nickname = nick;
          p.entity.nicknames = [nick];
        }
      }
    }
  }
}
