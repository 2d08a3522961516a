import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlatform, type Platform } from '../../infra/composition.ts';
import { loadConfig } from '../../infra/config.ts';
import { silentLogger } from '../../infra/logger.ts';
import {
  ANALYTICS,
  CATALOG,
  declarePipeline,
  ofRoles,
  type Pipeline,
  PROJECTIONS,
  SEARCH,
  stepsOf,
} from '../../infra/pipeline.ts';
import { PIPELINE_PAGE, withTables } from '../../infra/pipeline-table.ts';
import { ROLES, type Role } from '../../processors/pipeline.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { tempDir } from '../support/temp-dir.ts';

/**
 * The pipeline's declaration (infra/pipeline.ts) is what `earshot start --roles`, `earshot
 * projections rebuild`, readiness and docs/pipeline.md read: here it is built on the embedded
 * engines and checked against each of them.
 */
describe('the pipeline declaration', () => {
  const tmp = tempDir();
  let platform: Platform;
  let pipeline: Pipeline;

  beforeAll(async () => {
    platform = await buildPlatform(loadConfig({ EARSHOT_DATA_DIR: tmp.dir }), silentLogger());
    pipeline = declarePipeline(platform);
  });
  afterAll(async () => {
    await platform?.close();
    tmp.remove();
  });

  it('is what docs/pipeline.md shows: the topics and steps tables are current (npm run docs:pipeline)', () => {
    const page = fs.readFileSync(PIPELINE_PAGE, 'utf8');
    expect(page).toBe(withTables(page, pipeline));
  });

  it('reads and writes only declared topics', () => {
    const declared = new Set(Object.values(TOPICS));
    for (const s of pipeline.steps) {
      for (const t of s.definition.inputs)
        expect(declared.has(t), `${s.definition.name} reads ${t.name}`).toBe(true);
      for (const t of s.outputs.topics ?? []) {
        expect(declared.has(t), `${s.definition.name} writes ${t.name}`).toBe(true);
      }
    }
  });

  it('splits into roles: every step and timer runs in exactly one of them', () => {
    const split = ROLES.map((role) => ofRoles(pipeline, new Set<Role>([role])));
    const steps = split.flatMap((p) => p.steps);
    const tasks = split.flatMap((p) => p.tasks);
    expect(new Set(steps).size).toBe(new Set(pipeline.steps).size);
    expect(steps).toHaveLength(pipeline.steps.length);
    expect(tasks).toHaveLength(pipeline.tasks.length);
    for (const s of pipeline.steps) expect(steps).toContain(s);
    for (const t of pipeline.tasks) expect(tasks).toContain(t);
    // The roles that serve HTTP and run the sources run no step.
    for (const role of ['api', 'ingest'] as const) {
      const p = ofRoles(pipeline, new Set<Role>([role]));
      expect(p.steps.length + p.tasks.length).toBe(0);
    }
  });

  it('gives each projection the steps that write its store, whatever they are named', () => {
    for (const projection of PROJECTIONS) expect(stepsOf(pipeline, projection).length).toBeGreaterThan(0);
    // Every step writing the analytics store or the search index is rebuilt with it.
    for (const s of pipeline.steps) {
      const stores = (s.outputs.stores ?? []).map((o) => o.store);
      if (stores.includes('analytics')) expect(stepsOf(pipeline, ANALYTICS)).toContain(s);
      if (stores.includes('search')) expect(stepsOf(pipeline, SEARCH)).toContain(s);
    }
    // Found by declaration, not by name: renamed, a step stays in its projection (a name prefix,
    // as `analytics-` was, would drop it silently).
    const renamed: Pipeline = {
      ...pipeline,
      steps: pipeline.steps.map((s) =>
        'projection' in s.rebuild
          ? { ...s, definition: { ...s.definition, name: `renamed-${s.definition.name}` } }
          : s,
      ),
    };
    for (const projection of [CATALOG, SEARCH, ANALYTICS]) {
      expect(stepsOf(renamed, projection).map((s) => s.definition.groupId)).toEqual(
        stepsOf(pipeline, projection).map((s) => s.definition.groupId),
      );
    }
  });
});
