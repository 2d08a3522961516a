import type { LanguagePack } from './types.ts';

/** Spanish shows. */
export const es: LanguagePack = {
  lang: 'es',
  locales: ['es-ES', 'es-ES', 'es-MX', 'es-AR'],
  cities: [
    'Sevilla',
    'Valencia',
    'Bilbao',
    'Málaga',
    'Zaragoza',
    'Guadalajara',
    'Monterrey',
    'Rosario',
    'Córdoba',
  ],
  weekdays: ['lunes', 'martes', 'miércoles', 'jueves', 'viernes', 'sábado', 'domingo'],
  numberWords: [
    'dos',
    'tres',
    'cuatro',
    'cinco',
    'seis',
    'siete',
    'ocho',
    'diez',
    'doce',
    'quince',
    'veinte',
  ],
  percent: (v) => `${v} por ciento`,
  money: (v) => `${v} mil millones de euros`,

  welcome: [
    'Hola y bienvenidos a {show}, soy {host}.',
    'Bienvenidos a un nuevo episodio de {show}. Soy {host}.',
    'Esto es {show}, y yo soy {host}.',
  ],
  cohostIntro: ['Y yo soy {host}.', 'Y yo soy {host}, qué gusto estar de vuelta.'],
  guestIntro: [
    'Hoy me acompaña {guest}, {title} en {employer}.',
    'Mi invitada de hoy es {guest}, {title} en {employer}.',
    'Tenemos con nosotros a {guest}, {title} en {employer}.',
  ],
  guestReply: [
    'Gracias, {hostFirst}, un placer estar aquí.',
    'Muchas gracias por la invitación, {hostFirst}.',
  ],
  panelIntro: ['En la mesa hoy: {panelists}.', 'Nos acompañan hoy {panelists}.'],
  panelHandoff: ['{first}, empezamos contigo.', '¿Tú qué opinas, {first}?'],
  correspondentHandoff: [
    'Conectamos con {corr}, nuestro corresponsal en {city}.',
    'Nos vamos a {city}, donde está {corr}.',
  ],
  correspondentOpen: [
    'Gracias, {hostFirst}. Aquí en {city} el ambiente está tenso.',
    'Gracias, {hostFirst}. Ha sido un día largo aquí en {city}.',
  ],
  correspondentClose: ['Devolvemos la conexión al estudio.', 'Eso es lo último desde aquí.'],
  soundbiteIntro: [
    'Escuchemos lo que dijo {person} esta semana.',
    'Esto es lo que declaró {person} el {weekday}.',
  ],
  soundbiteAfter: ['Palabras muy duras.', 'Esa es la versión oficial.'],
  callerIntro: [
    'Tenemos una llamada, {caller} desde {city}. Adelante.',
    'Al teléfono está {caller}, de {city}. Hola, buenas.',
  ],
  callerOpen: ['Hola, gracias por atenderme, os escucho desde hace años.'],
  callerClose: ['Gracias por llamar.', 'Muchas gracias, un saludo.'],
  banter: [
    '¿Qué tal el fin de semana?',
    'No ha parado de llover en toda la semana.',
    'Por fin arreglé la cocina, me llevó tres días.',
    'Mi hijo empezó clases de natación.',
    'He tomado demasiado café esta mañana.',
    'El tráfico de esta mañana era una locura.',
    'Fuimos al restaurante nuevo de la esquina, buenísimo.',
    'Empecé a correr, bueno, lo intento.',
  ],
  reactions: [
    'Exacto.',
    'Claro.',
    'Buen punto.',
    'No estoy tan seguro.',
    '¿En serio?',
    'Interesante.',
    'Vale.',
    'Totalmente.',
    'Qué locura.',
  ],
  fillers: ['Bueno,', 'Mira,', 'La verdad,', 'O sea,', 'Y', 'Pero'],
  questions: [
    '¿Cómo llegaste a interesarte por este tema?',
    '¿Qué es lo que la gente no entiende bien?',
    '¿Cómo ves los próximos años?',
    '¿Qué es lo que más te sorprendió?',
    '¿Por qué esto importa a nuestros oyentes?',
  ],
  transitions: [
    'Hablamos de eso después de la pausa.',
    'No se vayan, enseguida volvemos.',
    'Pasemos al siguiente tema.',
  ],
  adHostRead: [
    'Este episodio cuenta con el apoyo de {sponsor}.',
    'Llevo unos meses usando {sponsor} y de verdad me cambió la semana.',
    'Entra en {domain} y usa el código {code} para tu primer mes gratis.',
  ],
  adHostReadClose: ['Gracias a {sponsor} por apoyar el programa.'],
  adPreRecorded: [
    '{sponsor}. Haz más con menos. Más información en {domain}.',
    'Con {sponsor}, ahorra tiempo cada día. Consulta las condiciones.',
  ],
  promo: [
    'Si te gusta este programa, escucha también {show}, otro podcast de {publisher}.',
    'Nueva temporada de {show}, una producción de {publisher}, ya disponible.',
  ],
  outroGuest: ['Muchas gracias, {guestFirst}.', '{guestFirst}, gracias por esta conversación.'],
  outro: [
    'Eso es todo por hoy. Soy {host}, hasta la próxima semana.',
    'Gracias por escuchar {show}. Soy {host}, hasta pronto.',
  ],

  focus: {
    company: [
      'Las acciones de {company} se dispararon tras el anuncio.',
      'Todo el mundo habla de lo que hizo {company} este trimestre.',
      'La pregunta es si {company} puede mantener este ritmo.',
      '{company:ticker} cerró con una subida del {pct}.',
      'El comunicado completo está en {company:domain}.',
      'El consejo de {company} está bajo mucha presión.',
    ],
    person: [
      '{person} lleva años diciendo esto.',
      'Creo que {person} tiene razón en esto.',
      'Lo que dijo realmente {person} fue más matizado.',
      '{person:handle} publicó un hilo larguísimo sobre esto el {weekday}.',
      'Los críticos de {person} dicen que el plan no cuadra.',
    ],
    thing: [
      'El debate sobre {entity} ha cambiado este mes.',
      'Mucha gente todavía subestima {entity}.',
      '{entity} vuelve a estar en los titulares.',
    ],
  },
  passing: [
    'Me recuerda un poco a lo que pasó con {entity} el año pasado.',
    'Esta mañana me mandaron un artículo sobre {entity}.',
    'Por no hablar de {entity}, pero eso es otro tema.',
  ],
  titles: {
    withGuest: ['{headline}, con {guest}', '{guest}: {headline}'],
    withEntity: ['{headline}: el caso {entity}', '{entity} y {headline}'],
    plain: ['{headline}', 'Por qué importa {headline}', 'Episodio {num}: {headline}'],
  },
  descriptions: {
    withGuest: ['{host} conversa con {guest} sobre {headline}.'],
    withEntity: ['Esta semana: {headline}, y por qué todos miran a {entity}.'],
    plain: ['Esta semana: {headline}.'],
  },
  segmentTitles: {
    INTRO: ['Apertura', 'Presentaciones'],
    PERSONAL_BANTER: ['Charla', 'Qué tal la semana'],
    TRANSITION: ['Transición'],
    AD: ['Mensaje del patrocinador'],
    PROMO: ['Promoción'],
    OUTRO: ['Despedida'],
    INTERVIEW: ['La entrevista'],
  },
  clipIntros: ['Aquí está {speaker} sobre {headline}.', 'Escucha a {speaker} explicar {headline}.'],

  topics: [
    {
      id: 'economics',
      categories: ['business', 'economics', 'news'],
      concepts: [
        {
          id: 'economics.rate-hike.es',
          headline: 'la subida de tipos',
          lines: [
            'El BCE ha vuelto a endurecer la política monetaria.',
            'Pedir un préstamo sale cada vez más caro.',
            'Las hipotecas se han puesto por las nubes.',
            'Otro ajuste desde Fráncfort, nadie se sorprendió.',
          ],
        },
        {
          id: 'economics.inflation.es',
          headline: 'la inflación',
          lines: [
            'La compra semanal me cuesta treinta euros más.',
            'Todo en el supermercado está más caro que la primavera pasada.',
            'Los sueldos no siguen el ritmo de los precios.',
            'Muchas familias cambian de marca para llegar a fin de mes.',
          ],
        },
        {
          id: 'economics.jobs.es',
          headline: 'el paro',
          lines: [
            'El paro bajó hasta el {pct}.',
            'A las empresas les cuesta encontrar personal.',
            'Las ofertas de empleo caen desde hace tres meses.',
          ],
        },
      ],
    },
    {
      id: 'technology',
      categories: ['technology', 'tech-news'],
      concepts: [
        {
          id: 'technology.ai.es',
          headline: 'la inteligencia artificial',
          lines: [
            'Estos grandes modelos de lenguaje ya escriben código.',
            'Todo el mundo lanza su asistente generativo este año.',
            'Escribes una instrucción y te redacta el correo entero.',
            'Entrenar estas redes neuronales exige una potencia de cálculo enorme.',
          ],
        },
        {
          id: 'technology.breach.es',
          headline: 'la filtración',
          lines: [
            'Millones de fichas de clientes se filtraron tras el ataque.',
            'Los atacantes entraron con un correo de suplantación.',
            'Las contraseñas estaban guardadas sin cifrar.',
          ],
        },
      ],
    },
    {
      id: 'sports',
      categories: ['sports', 'football'],
      concepts: [
        {
          id: 'sports.transfer.es',
          headline: 'el fichaje',
          lines: [
            'El delantero firmó por tres años con {team}.',
            'Tras meses de rumores, el traspaso está cerrado.',
            'Es un récord para el club.',
          ],
        },
        {
          id: 'sports.injury.es',
          headline: 'la lesión',
          lines: [
            'Se rompió el ligamento cruzado en el entrenamiento.',
            'Estará de baja hasta la primavera.',
            'Los médicos hablan de nueve meses de recuperación.',
          ],
        },
      ],
    },
    {
      id: 'politics',
      categories: ['politics', 'news'],
      concepts: [
        {
          id: 'politics.polls.es',
          headline: 'las encuestas',
          lines: [
            'La última encuesta da cuatro puntos de ventaja a la aspirante.',
            'La participación de los jóvenes puede decidirlo todo.',
            'Con el margen de error, es prácticamente un empate.',
          ],
        },
        {
          id: 'politics.bill.es',
          headline: 'la ley',
          lines: [
            'El Congreso aprobó la {law} de madrugada.',
            'Salió adelante en comisión por un solo voto.',
            'La oposición la llevará al Constitucional.',
          ],
        },
      ],
    },
    {
      id: 'health',
      categories: ['health', 'fitness'],
      concepts: [
        {
          id: 'health.sleep.es',
          headline: 'el sueño',
          lines: [
            'La mayoría de los adultos necesita entre siete y nueve horas de descanso.',
            'La luz azul de las pantallas empeora la calidad del sueño.',
            'Un dormitorio oscuro y fresco marca la diferencia.',
          ],
        },
      ],
    },
    {
      id: 'culture',
      categories: ['arts', 'tv-film', 'music'],
      concepts: [
        {
          id: 'culture.music.es',
          headline: 'el disco del momento',
          lines: [
            'El nuevo disco debutó en el número uno.',
            'Las entradas de la gira se agotaron en minutos.',
            'El cartel del festival de este año es increíble.',
          ],
        },
      ],
    },
  ],
};
