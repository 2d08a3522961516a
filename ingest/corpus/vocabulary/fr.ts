import type { LanguagePack } from './types.ts';

/** French shows. */
export const fr: LanguagePack = {
  lang: 'fr',
  locales: ['fr-FR', 'fr-FR', 'fr-CA', 'fr-BE'],
  cities: ['Lyon', 'Marseille', 'Bordeaux', 'Toulouse', 'Lille', 'Nantes', 'Montréal', 'Bruxelles', 'Genève'],
  weekdays: ['lundi', 'mardi', 'mercredi', 'jeudi', 'vendredi', 'samedi', 'dimanche'],
  numberWords: ['deux', 'trois', 'quatre', 'cinq', 'six', 'sept', 'huit', 'dix', 'douze', 'quinze', 'vingt'],
  percent: (v) => `${v} pour cent`,
  money: (v) => `${v} milliards d’euros`,

  welcome: [
    'Bonjour et bienvenue dans {show}, je suis {host}.',
    'Bienvenue dans un nouvel épisode de {show}. Je suis {host}.',
    'Vous écoutez {show}, et je suis {host}.',
  ],
  cohostIntro: ['Et moi, je suis {host}.', 'Et je suis {host}, ravie d’être là.'],
  guestIntro: [
    'Avec moi aujourd’hui, {guest}, {title} chez {employer}.',
    'Mon invité cette semaine est {guest}, {title} chez {employer}.',
    'Nous recevons aujourd’hui {guest}, {title} chez {employer}.',
  ],
  guestReply: ['Merci, {hostFirst}, ravi d’être là.', 'Merci beaucoup pour l’invitation, {hostFirst}.'],
  panelIntro: ['Autour de la table aujourd’hui : {panelists}.', 'Avec nous sur le plateau : {panelists}.'],
  panelHandoff: ['{first}, on commence avec vous ?', 'Qu’en pensez-vous, {first} ?'],
  correspondentHandoff: [
    'Direction {city}, où se trouve notre correspondant {corr}.',
    'On retrouve {corr}, en direct de {city}.',
  ],
  correspondentOpen: [
    'Merci, {hostFirst}. Ici à {city}, l’ambiance est tendue.',
    'Merci, {hostFirst}. La journée a été longue ici à {city}.',
  ],
  correspondentClose: ['À vous le studio.', 'C’était le point depuis le terrain.'],
  soundbiteIntro: [
    'Écoutons ce qu’a déclaré {person} cette semaine.',
    'Voici ce qu’a dit {person} devant les journalistes {weekday}.',
  ],
  soundbiteAfter: ['Des mots forts.', 'Voilà pour la version officielle.'],
  callerIntro: [
    'Nous avons un auditeur en ligne, {caller}, de {city}. Bonjour !',
    'On prend un appel : {caller}, depuis {city}, vous êtes à l’antenne.',
  ],
  callerOpen: ['Bonjour, merci de prendre mon appel, je vous écoute depuis des années.'],
  callerClose: ['Merci pour votre appel.', 'Merci beaucoup, bonne journée à vous.'],
  banter: [
    'Alors, ce week-end, c’était comment ?',
    'Il a plu sans arrêt toute la semaine.',
    'J’ai enfin repeint la cuisine, ça m’a pris trois jours.',
    'Mon fils a commencé le judo, il adore.',
    'J’ai bu beaucoup trop de café ce matin.',
    'On a testé une nouvelle boulangerie dans le quartier, une merveille.',
    'Les bouchons ce matin, c’était infernal.',
    'Je me suis mis à la course à pied, enfin, j’essaie.',
  ],
  reactions: [
    'Tout à fait.',
    'Exactement.',
    'C’est un bon point.',
    'Je ne suis pas sûr.',
    'Ah bon ?',
    'Intéressant.',
    'D’accord.',
    'Oui, complètement.',
    'C’est fou.',
  ],
  fillers: ['Alors,', 'Bon,', 'En fait,', 'Écoutez,', 'Franchement,', 'Et', 'Mais'],
  questions: [
    'Qu’est-ce qui vous a amené à vous intéresser à ce sujet ?',
    'Qu’est-ce que le grand public comprend mal ?',
    'Comment voyez-vous les prochaines années ?',
    'Qu’est-ce qui vous a le plus surpris ?',
    'Pourquoi est-ce important pour nos auditeurs ?',
  ],
  transitions: [
    'On en parle juste après la pause.',
    'Restez avec nous, la suite arrive.',
    'Passons à autre chose.',
  ],
  adHostRead: [
    'Cet épisode vous est proposé par {sponsor}.',
    'J’utilise {sponsor} depuis quelques mois et franchement, ça change tout.',
    'Rendez-vous sur {domain} avec le code {code} pour un mois offert.',
  ],
  adHostReadClose: ['Merci à {sponsor} de soutenir l’émission.'],
  adPreRecorded: [
    '{sponsor}. Simplifiez votre quotidien. Plus d’informations sur {domain}.',
    'Avec {sponsor}, gagnez du temps chaque jour. Offre soumise à conditions.',
  ],
  promo: [
    'Si vous aimez cette émission, écoutez aussi {show}, un autre podcast de {publisher}.',
    'Nouvelle saison de {show}, une production {publisher}, disponible partout.',
  ],
  outroGuest: ['Merci infiniment, {guestFirst}.', '{guestFirst}, merci pour cet échange passionnant.'],
  outro: [
    'C’est tout pour aujourd’hui. Je suis {host}, à la semaine prochaine.',
    'Merci d’avoir écouté {show}. Je suis {host}, à bientôt.',
  ],

  focus: {
    company: [
      'L’action {company} a bondi après l’annonce.',
      'Tout le monde parle de ce qu’a fait {company} ce trimestre.',
      'La question, c’est de savoir si {company} peut tenir ce rythme.',
      '{company:ticker} a clôturé en hausse de {pct}.',
      'Le communiqué complet est sur {company:domain}.',
      'Le conseil d’administration de {company} est sous pression.',
    ],
    person: [
      '{person} le répète depuis des années.',
      'Je pense que {person} a raison sur ce point.',
      'Ce qu’a vraiment dit {person} était plus nuancé.',
      '{person:handle} a publié un long message à ce sujet {weekday}.',
      'Les critiques de {person} disent que le plan ne tient pas.',
    ],
    thing: [
      'Le débat autour de {entity} a changé ce mois-ci.',
      'On sous-estime encore {entity}.',
      '{entity} fait de nouveau la une.',
    ],
  },
  passing: [
    'Ça me rappelle un peu ce qui s’est passé avec {entity} l’an dernier.',
    'On m’a envoyé un article sur {entity} ce matin.',
    'Sans parler de {entity}, mais c’est un autre sujet.',
  ],
  titles: {
    withGuest: ['{headline}, avec {guest}', '{guest} : {headline}'],
    withEntity: ['{headline} : le cas {entity}', '{entity} et {headline}'],
    plain: ['{headline}', 'Pourquoi {headline}', 'Épisode {num} : {headline}'],
  },
  descriptions: {
    withGuest: ['{host} reçoit {guest} pour parler de {headline}.'],
    withEntity: ['Cette semaine : {headline}, et pourquoi tout le monde regarde {entity}.'],
    plain: ['Cette semaine : {headline}.'],
  },
  segmentTitles: {
    INTRO: ['Ouverture', 'Présentations'],
    PERSONAL_BANTER: ['On papote', 'Des nouvelles'],
    TRANSITION: ['Transition'],
    AD: ['Message de notre partenaire'],
    PROMO: ['Autopromotion'],
    OUTRO: ['Conclusion'],
    INTERVIEW: ['L’entretien'],
  },
  clipIntros: ['Voici {speaker} sur {headline}.', 'Écoutez {speaker} expliquer {headline}.'],

  topics: [
    {
      id: 'economics',
      categories: ['business', 'economics', 'news'],
      concepts: [
        {
          id: 'economics.rate-hike.fr',
          headline: 'la hausse des taux',
          lines: [
            'La BCE a encore resserré sa politique monétaire.',
            'Emprunter coûte de plus en plus cher depuis un an.',
            'Les crédits immobiliers deviennent hors de prix.',
            'Encore un tour de vis de Francfort, personne n’est surpris.',
            'Le coût du crédit grimpe et les ménages trinquent.',
          ],
        },
        {
          id: 'economics.inflation.fr',
          headline: 'l’inflation',
          lines: [
            'Les courses coûtent une fortune, mon panier a pris trente euros.',
            'Tout est plus cher au supermarché qu’au printemps dernier.',
            'Les salaires ne suivent pas la hausse des prix.',
            'Les familles changent de marque pour boucler le mois.',
          ],
        },
        {
          id: 'economics.jobs.fr',
          headline: 'le chômage',
          lines: [
            'Le chômage est tombé à {pct}.',
            'Les entreprises peinent à recruter.',
            'Les offres d’emploi reculent depuis trois mois.',
            'Le marché du travail reste tendu.',
          ],
        },
      ],
    },
    {
      id: 'technology',
      categories: ['technology', 'tech-news'],
      concepts: [
        {
          id: 'technology.ai.fr',
          headline: 'l’intelligence artificielle',
          lines: [
            'Ces grands modèles de langage écrivent du code maintenant.',
            'Tout le monde lance son assistant génératif cette année.',
            'On tape une consigne et il rédige tout le courriel.',
            'Entraîner ces réseaux de neurones demande une puissance de calcul énorme.',
          ],
        },
        {
          id: 'technology.breach.fr',
          headline: 'la fuite de données',
          lines: [
            'Des millions de fiches clients ont fuité après l’attaque.',
            'Les pirates sont entrés grâce à un courriel d’hameçonnage.',
            'Les mots de passe étaient stockés en clair.',
            'Un rançongiciel a paralysé tout l’hôpital.',
          ],
        },
      ],
    },
    {
      id: 'sports',
      categories: ['sports', 'football'],
      concepts: [
        {
          id: 'sports.transfer.fr',
          headline: 'le mercato',
          lines: [
            'L’attaquant a signé trois ans avec {team}.',
            'Après des mois de rumeurs, le transfert est bouclé.',
            'C’est un record pour le club.',
            'Son agent le propose partout depuis l’hiver.',
          ],
        },
        {
          id: 'sports.injury.fr',
          headline: 'la blessure',
          lines: [
            'Il s’est rompu les ligaments croisés à l’entraînement.',
            'Elle sera absente jusqu’au printemps.',
            'Les médecins parlent de neuf mois de convalescence.',
            'Il est sorti en boitant après vingt minutes.',
          ],
        },
      ],
    },
    {
      id: 'politics',
      categories: ['politics', 'news'],
      concepts: [
        {
          id: 'politics.polls.fr',
          headline: 'les sondages',
          lines: [
            'Le dernier sondage donne le challenger en tête de quatre points.',
            'La participation des jeunes pourrait tout changer.',
            'Avec la marge d’erreur, c’est pratiquement une égalité.',
            'Le sortant est distancé dans les régions clés.',
          ],
        },
        {
          id: 'politics.bill.fr',
          headline: 'le projet de loi',
          lines: [
            'L’Assemblée a adopté le {law} tard dans la nuit.',
            'Le texte est passé à une voix près en commission.',
            'L’opposition promet de saisir le Conseil constitutionnel.',
          ],
        },
      ],
    },
    {
      id: 'health',
      categories: ['health', 'fitness'],
      concepts: [
        {
          id: 'health.sleep.fr',
          headline: 'le sommeil',
          lines: [
            'La plupart des adultes ont besoin de sept à neuf heures de repos.',
            'La lumière bleue des écrans abîme la qualité du sommeil.',
            'Je me couche à dix heures et je me sens beaucoup mieux.',
            'Une chambre sombre et fraîche change tout.',
          ],
        },
      ],
    },
    {
      id: 'culture',
      categories: ['arts', 'tv-film', 'music'],
      concepts: [
        {
          id: 'culture.boxoffice.fr',
          headline: 'le box-office',
          lines: [
            'La suite a fait deux millions d’entrées dès la première semaine.',
            'Les salles étaient pleines pour l’avant-première.',
            'Un petit film indépendant est devenu le succès surprise de l’année.',
          ],
        },
      ],
    },
  ],
};
