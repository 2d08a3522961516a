import type { TopicId } from './types.ts';

/**
 * Names that are also ordinary words: "Apple" the company and the fruit, "Amazon" the retailer
 * and the river, "Jaguar" the carmaker and the cat, "Mercury" the planet and the metal, "Delta"
 * the airline and the river mouth. The generator plants both senses and records each
 * occurrence with its sense, so the detector's disambiguation can be measured.
 *
 * `{X}` is the capitalised name, `{x}` the lowercase word, `{N}` the entity's first nickname. Entity-sense lines carry the words a
 * listener would use to tell the sense apart (the entity's context terms) in the line itself or,
 * for a `[line, follow-up]` pair, in the next line.
 */
export interface AmbiguousDef {
  key: string;
  surface: string;
  kind: 'COMPANY' | 'KNOWLEDGE_GRAPH_ENTITY';
  name: string;
  aliases: string[];
  nicknames: string[];
  handles: string[];
  contextTerms: string[];
  company?: { domain: string; ticker: string };
  category: { slug: string; name: string };
  description: string;
  wikipedia: string;
  topics: TopicId[];
  entitySense: (string | [string, string])[];
  /** Lines using the word in its ordinary sense; the topics where such talk is natural. */
  otherSense: string[];
  otherTopics: (TopicId | 'banter')[];
}

export const AMBIGUOUS: AmbiguousDef[] = [
  {
    key: 'apple',
    surface: 'Apple',
    kind: 'COMPANY',
    name: 'Apple Inc.',
    aliases: ['Apple'],
    nicknames: ['Cupertino'],
    handles: ['@Apple'],
    contextTerms: [
      'iphone',
      'ipad',
      'mac',
      'macbook',
      'app store',
      'shares',
      'stock',
      'earnings',
      'smartphone',
      'quarter',
      'revenue',
      'developers',
    ],
    company: { domain: 'apple.com', ticker: 'AAPL' },
    category: { slug: 'technology', name: 'Technology' },
    description: 'Consumer electronics and software company',
    wikipedia: 'https://en.wikipedia.org/wiki/Apple_Inc.',
    topics: ['technology', 'markets'],
    entitySense: [
      '{X} sold fewer iPhones in China this quarter.',
      '{X}’s App Store rules are under investigation again.',
      'The new MacBook from {X} is surprisingly affordable.',
      '{X} shares fell after the earnings call.',
      'Developers are furious with {X} over the app store fees.',
      'I think {X} will announce a foldable iPhone next year.',
      ['{X} did it again.', 'Another record quarter, and iPhone revenue carried the whole thing.'],
      '{N} is betting everything on the new iPhone camera.',
    ],
    otherSense: [
      '{X} pie with vanilla ice cream is the perfect dessert.',
      '{X} orchards upstate had a great harvest this autumn.',
      '{X} cider season is my favourite time of year.',
      'My grandmother’s {x} crumble recipe is legendary.',
      'We went {x} picking with the kids on Sunday.',
      'An {x} a day, as they say.',
      'Toffee {x} at the county fair, nothing beats it.',
    ],
    otherTopics: ['banter', 'food', 'health'],
  },
  {
    key: 'amazon',
    surface: 'Amazon',
    kind: 'COMPANY',
    name: 'Amazon.com, Inc.',
    aliases: ['Amazon'],
    nicknames: [],
    handles: ['@amazon'],
    contextTerms: [
      'prime',
      'warehouse',
      'delivery',
      'cloud',
      'shares',
      'online',
      'retailer',
      'package',
      'ordered',
      'shopping',
      'e-commerce',
      'earnings',
    ],
    company: { domain: 'amazon.com', ticker: 'AMZN' },
    category: { slug: 'consumer', name: 'Consumer goods' },
    description: 'Online retailer and cloud computing company',
    wikipedia: 'https://en.wikipedia.org/wiki/Amazon_(company)',
    topics: ['markets', 'technology', 'economics'],
    entitySense: [
      '{X} is hiring thousands of warehouse workers for the holidays.',
      '{X}’s cloud business grew faster than expected.',
      'I ordered it on {X} and the package came the next day.',
      '{X} Prime is getting more expensive again.',
      '{X} shares rallied after the earnings report.',
      'Small shops say {X} is crushing online retail.',
    ],
    otherSense: [
      'The {X} river carries a fifth of the fresh water that reaches the oceans.',
      'We took a boat trip down the {X} and saw pink dolphins.',
      'Fires in the {X} rainforest are visible from space.',
      'The {X} basin is home to thousands of species nobody has described yet.',
      '{X} deforestation slowed a little this year, the satellite images show.',
    ],
    otherTopics: ['climate', 'science', 'banter', 'food'],
  },
  {
    key: 'jaguar',
    surface: 'Jaguar',
    kind: 'COMPANY',
    name: 'Jaguar Cars',
    aliases: ['Jaguar'],
    nicknames: [],
    handles: ['@Jaguar'],
    contextTerms: [
      'car',
      'cars',
      'electric',
      'dealership',
      'sedan',
      'suv',
      'carmaker',
      'vehicles',
      'brand',
      'rebrand',
      'models',
      'recalled',
    ],
    category: { slug: 'automotive', name: 'Automotive' },
    description: 'British luxury carmaker',
    wikipedia: 'https://en.wikipedia.org/wiki/Jaguar_Cars',
    topics: ['markets', 'technology', 'climate'],
    entitySense: [
      '{X} is going fully electric by the end of the decade.',
      'The new {X} sedan is gorgeous, but the dealership wanted a fortune.',
      '{X}’s rebrand confused a lot of longtime car fans.',
      '{X} recalled thousands of vehicles over a brake issue.',
      'Luxury carmakers like {X} are struggling to sell electric models.',
    ],
    otherSense: [
      'A {x} can bite straight through a turtle shell.',
      '{X} sightings near the river have doubled, the rangers told us.',
      'We saw a {x} on a night walk, just its eyes in the torchlight.',
      '{X} populations are recovering in the wetlands.',
    ],
    otherTopics: ['science', 'banter', 'climate'],
  },
  {
    key: 'mercury',
    surface: 'Mercury',
    kind: 'KNOWLEDGE_GRAPH_ENTITY',
    name: 'Mercury (planet)',
    aliases: ['Mercury'],
    nicknames: [],
    handles: [],
    contextTerms: [
      'planet',
      'orbit',
      'orbits',
      'sun',
      'probe',
      'spacecraft',
      'solar system',
      'telescope',
      'craters',
      'mission',
    ],
    category: { slug: 'astronomy', name: 'Astronomy' },
    description: 'Smallest planet of the solar system and closest to the sun',
    wikipedia: 'https://en.wikipedia.org/wiki/Mercury_(planet)',
    topics: ['science'],
    entitySense: [
      '{X} orbits the sun in just eighty-eight days.',
      'The probe will reach {X} after a seven-year cruise.',
      '{X} is the smallest planet in the solar system.',
      'Craters on {X} may hide water ice, the telescope data suggest.',
    ],
    otherSense: [
      '{X} levels in tuna are something pregnant women should watch.',
      'Old thermometers used {x}, which is toxic if they break.',
      '{X} poisoning was common among hat makers, hence the phrase.',
      'The {x} hit thirty-five degrees this afternoon.',
    ],
    otherTopics: ['health', 'banter', 'climate', 'food'],
  },
  {
    key: 'delta',
    surface: 'Delta',
    kind: 'COMPANY',
    name: 'Delta Air Lines',
    aliases: ['Delta', 'Delta Air Lines'],
    nicknames: [],
    handles: ['@Delta'],
    contextTerms: [
      'flight',
      'flights',
      'airline',
      'airport',
      'passengers',
      'pilots',
      'boarding',
      'planes',
      'carrier',
      'routes',
    ],
    company: { domain: 'delta.com', ticker: 'DAL' },
    category: { slug: 'transport', name: 'Transport' },
    description: 'American airline',
    wikipedia: 'https://en.wikipedia.org/wiki/Delta_Air_Lines',
    topics: ['markets', 'economics'],
    entitySense: [
      '{X} cancelled hundreds of flights because of the storm.',
      '{X}’s pilots are voting on a strike.',
      'I flew {X} last week and the boarding was chaos.',
      '{X} is adding new routes out of the airport.',
    ],
    otherSense: [
      'The river {x} is where the best rice grows.',
      '{X} farmers are losing land to the rising sea.',
      'The Mekong {x} floods every single year.',
      '{X} wetlands near the coast are disappearing fast.',
    ],
    otherTopics: ['climate', 'food', 'banter'],
  },
];
