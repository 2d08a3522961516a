import { describe, expect, it } from 'vitest';
import { loadSchema, type SchemaName } from '../../schemas/avro-schemas.ts';
import {
  ALERT_ENTITY_TYPES,
  ALERT_KINDS,
  CADENCES,
  CHANNEL_TYPES,
  SPEAKER_ROLES,
} from '../../schemas/event-enums.ts';

/** The symbols of the enum `name` declared somewhere in an Avro schema. */
function symbolsOf(schema: SchemaName, name: string): string[] {
  const found: string[][] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (o.type === 'enum' && o.name === name) found.push(o.symbols as string[]);
      Object.values(o).forEach(walk);
    }
  };
  walk(JSON.parse(loadSchema(schema).text));
  if (found.length === 0) throw new Error(`no enum ${name} in ${schema}`);
  return found[0]!;
}

describe('event schema enums as values', () => {
  it.each([
    ['AlertMatched', 'AlertKind', ALERT_KINDS],
    ['AlertMatched', 'AlertEntityType', ALERT_ENTITY_TYPES],
    ['DeliveryRequested', 'DeliveryCadence', CADENCES],
    ['DeliveryRequested', 'ChannelType', CHANNEL_TYPES],
    ['SpeakersIdentified', 'SpeakerRole', SPEAKER_ROLES],
  ] as const)('%s.%s lists the symbols of the schema, in its order', (schema, name, values) => {
    expect([...values]).toEqual(symbolsOf(schema, name));
  });
});
