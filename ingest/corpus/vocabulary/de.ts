import type { LanguagePack } from './types.ts';

/** German shows. */
export const de: LanguagePack = {
  lang: 'de',
  locales: ['de-DE', 'de-DE', 'de-AT', 'de-CH'],
  cities: ['Hamburg', 'Köln', 'Leipzig', 'Dresden', 'Stuttgart', 'Wien', 'Zürich', 'Bremen', 'Hannover'],
  weekdays: ['Montag', 'Dienstag', 'Mittwoch', 'Donnerstag', 'Freitag', 'Samstag', 'Sonntag'],
  numberWords: [
    'zwei',
    'drei',
    'vier',
    'fünf',
    'sechs',
    'sieben',
    'acht',
    'zehn',
    'zwölf',
    'fünfzehn',
    'zwanzig',
  ],
  percent: (v) => `${v} Prozent`,
  money: (v) => `${v} Milliarden Euro`,

  welcome: [
    'Herzlich willkommen bei {show}, ich bin {host}.',
    'Hallo und willkommen zu einer neuen Folge von {show}. Ich bin {host}.',
    'Das ist {show}, und ich bin {host}.',
  ],
  cohostIntro: ['Und ich bin {host}.', 'Und ich bin {host}, schön, wieder dabei zu sein.'],
  guestIntro: [
    'Heute zu Gast ist {guest}, {title} bei {employer}.',
    'Mein Gast heute ist {guest}, {title} bei {employer}.',
    'Bei mir im Studio sitzt {guest}, {title} bei {employer}.',
  ],
  guestReply: ['Danke, {hostFirst}, schön, hier zu sein.', 'Vielen Dank für die Einladung, {hostFirst}.'],
  panelIntro: ['In unserer Runde heute: {panelists}.', 'Mit dabei sind heute {panelists}.'],
  panelHandoff: ['{first}, fangen wir mit dir an.', 'Was meinst du, {first}?'],
  correspondentHandoff: [
    'Wir schalten zu {corr} nach {city}.',
    'Unser Korrespondent {corr} berichtet aus {city}.',
  ],
  correspondentOpen: [
    'Danke, {hostFirst}. Hier in {city} ist die Stimmung angespannt.',
    'Danke, {hostFirst}. Es war ein langer Tag hier in {city}.',
  ],
  correspondentClose: ['Damit zurück ins Studio.', 'Soweit der Stand von hier.'],
  soundbiteIntro: ['Hören wir, was {person} dazu gesagt hat.', 'So hat sich {person} am {weekday} geäußert.'],
  soundbiteAfter: ['Deutliche Worte.', 'Das war also die offizielle Linie.'],
  callerIntro: [
    'Wir haben einen Anrufer in der Leitung, {caller} aus {city}. Hallo!',
    'Jetzt haben wir {caller} aus {city} in der Leitung. Bitte schön.',
  ],
  callerOpen: ['Hallo, danke, dass ich durchgekommen bin, ich höre euch schon lange.'],
  callerClose: ['Danke für den Anruf.', 'Vielen Dank und einen schönen Tag noch.'],
  banter: [
    'Wie war dein Wochenende?',
    'Es hat die ganze Woche nur geregnet.',
    'Ich habe endlich den Keller aufgeräumt.',
    'Meine Tochter hat mit dem Schwimmkurs angefangen.',
    'Ich habe heute Morgen viel zu viel Kaffee getrunken.',
    'Der Stau heute früh war unglaublich.',
    'Wir waren beim neuen Italiener um die Ecke, richtig gut.',
    'Ich habe mit dem Laufen angefangen, also, ich versuche es.',
  ],
  reactions: [
    'Genau.',
    'Stimmt.',
    'Guter Punkt.',
    'Da bin ich mir nicht so sicher.',
    'Wirklich?',
    'Spannend.',
    'Okay.',
    'Absolut.',
    'Verrückt.',
  ],
  fillers: ['Also,', 'Naja,', 'Ehrlich gesagt,', 'Schau mal,', 'Und', 'Aber'],
  questions: [
    'Wie bist du zu diesem Thema gekommen?',
    'Was verstehen die meisten Leute daran falsch?',
    'Wie siehst du die nächsten Jahre?',
    'Was hat dich am meisten überrascht?',
    'Warum ist das für unsere Hörer wichtig?',
  ],
  transitions: [
    'Darüber sprechen wir nach der Pause.',
    'Bleibt dran, gleich geht es weiter.',
    'Kommen wir zum nächsten Thema.',
  ],
  adHostRead: [
    'Diese Folge wird unterstützt von {sponsor}.',
    'Ich nutze {sponsor} jetzt seit ein paar Monaten und bin ehrlich begeistert.',
    'Geht auf {domain} und nutzt den Code {code} für einen Gratismonat.',
  ],
  adHostReadClose: ['Danke an {sponsor} für die Unterstützung.'],
  adPreRecorded: [
    '{sponsor}. Einfach mehr erreichen. Mehr auf {domain}.',
    'Mit {sponsor} sparen Sie jeden Tag Zeit. Es gelten die Bedingungen.',
  ],
  promo: [
    'Wenn euch diese Sendung gefällt, hört auch {show}, ein weiterer Podcast von {publisher}.',
    'Neue Staffel von {show}, eine Produktion von {publisher}, überall, wo es Podcasts gibt.',
  ],
  outroGuest: ['Vielen Dank, {guestFirst}.', '{guestFirst}, danke für das tolle Gespräch.'],
  outro: [
    'Das war es für heute. Ich bin {host}, bis nächste Woche.',
    'Danke fürs Zuhören bei {show}. Ich bin {host}, tschüss.',
  ],

  focus: {
    company: [
      'Die Aktie von {company} ist nach der Ankündigung gesprungen.',
      'Alle reden darüber, was {company} in diesem Quartal gemacht hat.',
      'Die Frage ist, ob {company} das durchhalten kann.',
      '{company:ticker} schloss {pct} im Plus.',
      'Die ganze Mitteilung steht auf {company:domain}.',
      'Der Vorstand von {company} steht unter Druck.',
    ],
    person: [
      '{person} sagt das schon seit Jahren.',
      'Ich glaube, {person} hat in diesem Punkt recht.',
      'Was {person} tatsächlich gesagt hat, war differenzierter.',
      '{person:handle} hat am {weekday} einen langen Beitrag dazu veröffentlicht.',
      'Kritiker von {person} sagen, der Plan geht nicht auf.',
    ],
    thing: [
      'Die Debatte um {entity} hat sich diesen Monat gedreht.',
      'Viele unterschätzen {entity} noch immer.',
      '{entity} ist wieder in den Schlagzeilen.',
    ],
  },
  passing: [
    'Das erinnert mich an die Sache mit {entity} letztes Jahr.',
    'Mir hat heute Morgen jemand einen Artikel über {entity} geschickt.',
    'Von {entity} ganz zu schweigen, aber das ist ein anderes Thema.',
  ],
  titles: {
    withGuest: ['{headline}, mit {guest}', '{guest} über {headline}'],
    withEntity: ['{headline}: der Fall {entity}', '{entity} und {headline}'],
    plain: ['{headline}', 'Warum {headline}', 'Folge {num}: {headline}'],
  },
  descriptions: {
    withGuest: ['{host} spricht mit {guest} über {headline}.'],
    withEntity: ['Diese Woche: {headline}, und warum alle auf {entity} schauen.'],
    plain: ['Diese Woche: {headline}.'],
  },
  segmentTitles: {
    INTRO: ['Begrüßung', 'Einstieg'],
    PERSONAL_BANTER: ['Was gibt es Neues', 'Plauderei'],
    TRANSITION: ['Überleitung'],
    AD: ['Werbung'],
    PROMO: ['In eigener Sache'],
    OUTRO: ['Verabschiedung'],
    INTERVIEW: ['Das Gespräch'],
  },
  clipIntros: ['Hier ist {speaker} über {headline}.', 'Hört, wie {speaker} {headline} erklärt.'],

  topics: [
    {
      id: 'economics',
      categories: ['business', 'economics', 'news'],
      concepts: [
        {
          id: 'economics.rate-hike.de',
          headline: 'die Zinserhöhung',
          lines: [
            'Die EZB hat die Geldpolitik erneut gestrafft.',
            'Kredite sind so teuer wie seit Jahren nicht mehr.',
            'Baufinanzierungen werden für viele unbezahlbar.',
            'Schon wieder eine Anhebung aus Frankfurt, überrascht hat das niemanden.',
          ],
        },
        {
          id: 'economics.inflation.de',
          headline: 'die Inflation',
          lines: [
            'Der Wocheneinkauf kostet inzwischen dreißig Euro mehr.',
            'Im Supermarkt ist alles teurer als im letzten Frühjahr.',
            'Die Löhne halten mit den Preisen nicht Schritt.',
            'Viele Familien greifen zu günstigeren Marken.',
          ],
        },
        {
          id: 'economics.jobs.de',
          headline: 'der Arbeitsmarkt',
          lines: [
            'Die Arbeitslosenquote ist auf {pct} gesunken.',
            'Firmen finden kaum noch Fachkräfte.',
            'Die Zahl der offenen Stellen sinkt seit drei Monaten.',
          ],
        },
      ],
    },
    {
      id: 'technology',
      categories: ['technology', 'tech-news'],
      concepts: [
        {
          id: 'technology.ai.de',
          headline: 'die künstliche Intelligenz',
          lines: [
            'Diese großen Sprachmodelle schreiben inzwischen Code.',
            'Jeder bringt dieses Jahr einen generativen Assistenten heraus.',
            'Man tippt eine Anweisung ein und die ganze Mail ist fertig.',
            'Das Training dieser neuronalen Netze braucht enorme Rechenleistung.',
          ],
        },
        {
          id: 'technology.breach.de',
          headline: 'das Datenleck',
          lines: [
            'Millionen Kundendatensätze sind nach dem Angriff aufgetaucht.',
            'Die Angreifer kamen über eine Phishing-Mail ins Netz.',
            'Die Passwörter lagen im Klartext vor.',
            'Eine Erpressersoftware hat das ganze Krankenhaus lahmgelegt.',
          ],
        },
      ],
    },
    {
      id: 'sports',
      categories: ['sports', 'football'],
      concepts: [
        {
          id: 'sports.transfer.de',
          headline: 'der Wechsel',
          lines: [
            'Der Stürmer hat für drei Jahre bei {team} unterschrieben.',
            'Nach Monaten voller Gerüchte ist der Wechsel perfekt.',
            'Die Ablöse ist ein Vereinsrekord.',
          ],
        },
        {
          id: 'sports.injury.de',
          headline: 'die Verletzung',
          lines: [
            'Er hat sich im Training das Kreuzband gerissen.',
            'Sie fällt bis zum Frühjahr aus.',
            'Die Ärzte rechnen mit neun Monaten Pause.',
          ],
        },
      ],
    },
    {
      id: 'politics',
      categories: ['politics', 'news'],
      concepts: [
        {
          id: 'politics.polls.de',
          headline: 'die Umfragen',
          lines: [
            'In der neuesten Umfrage liegt die Herausforderin vier Punkte vorn.',
            'Die Wahlbeteiligung der Jungen könnte alles entscheiden.',
            'Mit der Fehlertoleranz ist das praktisch ein Gleichstand.',
          ],
        },
        {
          id: 'politics.bill.de',
          headline: 'das Gesetz',
          lines: [
            'Der Bundestag hat das {law} spät in der Nacht beschlossen.',
            'Im Ausschuss ging es mit einer Stimme Mehrheit durch.',
            'Die Opposition will vor das Verfassungsgericht ziehen.',
          ],
        },
      ],
    },
    {
      id: 'health',
      categories: ['health', 'fitness'],
      concepts: [
        {
          id: 'health.sleep.de',
          headline: 'der Schlaf',
          lines: [
            'Die meisten Erwachsenen brauchen sieben bis neun Stunden Ruhe.',
            'Das blaue Licht der Bildschirme verschlechtert die Schlafqualität.',
            'Ein dunkles, kühles Schlafzimmer macht einen riesigen Unterschied.',
          ],
        },
      ],
    },
    {
      id: 'science',
      categories: ['science', 'space'],
      concepts: [
        {
          id: 'science.landing.de',
          headline: 'die Landung',
          lines: [
            'Der Lander hat sicher auf der Marsoberfläche aufgesetzt.',
            'Die ersten Bilder kamen nach einer Stunde.',
            'Im Kontrollzentrum brach Jubel aus, als das Signal kam.',
          ],
        },
      ],
    },
  ],
};
