import path from 'node:path';
import type { EventLog } from '../../ingest/event-log/event-log.ts';
import { type EventProducer, type OutputEvent, outputSink } from '../../ingest/event-producer.ts';
import type {
  AdReads,
  Entity,
  EpisodePublished,
  MentionsDetected,
  Podcast,
  SpeakersIdentified,
  Transcript,
} from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { type DecodedRecord, PermanentWriteError, type ProcessorDefinition } from '../consumer-runner.ts';
import { finalizeMentions, findMentions } from '../mentions/detect.ts';
import { identifySpeakers } from '../speakers/identify.ts';
import { ok } from '../step-result.ts';
import { type EpisodeContextOptions, EpisodeContextStore } from './episode-context.ts';

/**
 * The understanding steps of the `processors` role:
 *
 * - `episode-context` keeps the table the other two read (entities, podcasts, episodes, ad
 *   reads); when ad reads arrive for an episode whose transcript was already processed, it emits
 *   the episode's mentions again with the new ad flags and relevance;
 * - `mentions` turns each transcript into a MentionsDetected event (topic mentions.detected);
 * - `speakers` turns each transcript into a SpeakersIdentified event (topic speakers.identified).
 *
 * A transcript whose episode is not in the table yet, or produced after the table's last
 * catch-up, is handed to the sink as deferred: the sink waits until the table has caught up
 * with it (the topic waits, nothing is skipped), then computes the event. A transcript whose
 * episode is still unknown long after the table caught up is dead-lettered with that reason.
 */
type Outputs = 'mentions' | 'speakers';
type Out = OutputEvent<Outputs>;
type Deferred = { deferred: Transcript; timestamp: number };
type Item = Out | Deferred | { applied: true };

export interface UnderstandingDeps {
  eventLog: EventLog;
  producer: EventProducer;
  dataDir: string;
  options?: EpisodeContextOptions;
}

export interface UnderstandingSteps {
  /** The shared table, opened on first use (steps of roles that do not run never open it). */
  store(): EpisodeContextStore;
  context: ProcessorDefinition<unknown, Item>;
  mentions: ProcessorDefinition<Transcript, Item>;
  speakers: ProcessorDefinition<Transcript, Item>;
}

export function mentionsEvent(
  store: EpisodeContextStore,
  transcript: Transcript,
  detectedAt: number,
): MentionsDetected {
  const facts = store.facts(transcript.episode_id);
  if (!facts) throw new Error(`episode ${transcript.episode_id} unknown`);
  const found = findMentions(transcript, facts, store.gazetteer);
  store.saveProcessed(transcript.episode_id, transcript, found, detectedAt);
  return finalizeMentions(transcript, found, facts, store.gazetteer, detectedAt);
}

export function speakersEvent(
  store: EpisodeContextStore,
  transcript: Transcript,
  identifiedAt: number,
): SpeakersIdentified {
  const episode = store.episode(transcript.episode_id);
  if (!episode) throw new Error(`episode ${transcript.episode_id} unknown`);
  return identifySpeakers(
    transcript,
    { episode, podcast: store.podcast(episode.podcast_id) ?? null, adReads: store.adReadsOf(episode.id) },
    { gazetteer: store.gazetteer, entity: (id) => store.entity(id), identifiedAt },
  );
}

export function understandingSteps(deps: UnderstandingDeps): UnderstandingSteps {
  let opened: EpisodeContextStore | undefined;
  const open = () =>
    (opened ??= new EpisodeContextStore(
      path.join(deps.dataDir, 'processors', 'episode-context'),
      deps.options,
    ));
  const outputs = outputSink(deps.producer, { mentions: TOPICS.mentions, speakers: TOPICS.speakers });
  /** Each step holds the store from its first record until it closes. */
  const user = () => {
    let held: EpisodeContextStore | undefined;
    return {
      store(): EpisodeContextStore {
        if (!held) {
          held = open();
          held.acquire(deps.eventLog);
        }
        return held;
      },
      async release() {
        await held?.release();
        held = undefined;
        // A store opened only for its group id (the steps never saw a record) is closed too.
        if (opened?.idle) await opened.release();
      },
    };
  };

  const ctxUser = user();
  const context: ProcessorDefinition<unknown, Item> = {
    name: 'episode-context',
    get groupId() {
      return open().groupId;
    },
    inputs: [TOPICS.entities, TOPICS.podcasts, TOPICS.episodes, TOPICS.adReads],
    handle(record: DecodedRecord<unknown>) {
      const store = ctxUser.store();
      switch (record.topic) {
        case TOPICS.entities.name:
          store.applyEntity(record.value as Entity);
          break;
        case TOPICS.podcasts.name:
          store.applyPodcast(record.value as Podcast);
          break;
        case TOPICS.episodes.name:
          store.applyEpisode(record.value as EpisodePublished);
          break;
        case TOPICS.adReads.name: {
          const ads = record.value as AdReads;
          store.applyAdReads(ads);
          const done = store.processed(ads.episode_id);
          const facts = store.facts(ads.episode_id);
          if (done && facts) {
            const transcript = {
              episode_id: ads.episode_id,
              language: done.language,
              lines: done.lines.map((l) => ({ ...l, speaker: '', role: null, text: '', words: null })),
              transcribed_at: 0,
            };
            const value = finalizeMentions(transcript, done.found, facts, store.gazetteer, done.detectedAt);
            return ok<Item>({ output: 'mentions', key: ads.episode_id, value });
          }
          break;
        }
      }
      return ok<Item>({ applied: true });
    },
    sink: {
      async write(items) {
        await ctxUser.store().flushed();
        const out = items.filter((i): i is Out => 'output' in i);
        if (out.length > 0) await outputs.write(out);
      },
    },
    close: () => ctxUser.release(),
  };

  const transcriptStep = (
    name: Outputs,
    compute: (store: EpisodeContextStore, t: Transcript, at: number) => MentionsDetected | SpeakersIdentified,
  ): ProcessorDefinition<Transcript, Item> => {
    const u = user();
    return {
      name,
      groupId: name,
      inputs: [TOPICS.transcripts],
      handle(record) {
        const store = u.store();
        const t = record.value;
        if (!store.ready(t.episode_id, record.timestamp))
          return ok<Item>({ deferred: t, timestamp: record.timestamp });
        return ok<Item>({ output: name, key: t.episode_id, value: compute(store, t, record.timestamp) });
      },
      sink: {
        async write(items) {
          const store = u.store();
          const out: Out[] = [];
          for (const item of items) {
            if ('deferred' in item) {
              const state = await store.waitReady(item.deferred.episode_id, item.timestamp);
              if (state === 'unknown') {
                throw new PermanentWriteError(
                  `episode ${item.deferred.episode_id} is unknown: no episodes.published record arrived within ` +
                    `${store.options.unknownEpisodeWaitMs} ms of the context tables catching up`,
                );
              }
              out.push({
                output: name,
                key: item.deferred.episode_id,
                value: compute(store, item.deferred, item.timestamp),
              });
            } else if ('output' in item) {
              out.push(item);
            }
          }
          await store.flushed();
          await outputs.write(out);
        },
      },
      close: () => u.release(),
    };
  };

  const mentions = transcriptStep('mentions', (store, t, at) => mentionsEvent(store, t, at));
  const speakers = transcriptStep('speakers', (store, t, at) => speakersEvent(store, t, at));
  return { store: open, context, mentions, speakers };
}
