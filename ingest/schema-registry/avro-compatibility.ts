import avro from 'avsc';

/** Parses an Avro schema text, throwing with avsc's reason when it is not valid. */
export function parseAvro(schema: string): avro.Type {
  return avro.Type.forSchema(JSON.parse(schema));
}

/**
 * BACKWARD compatibility as the Confluent registry defines it: data written with `previous`
 * must be readable with `next`. Returns the reason when it is not.
 */
export function backwardIncompatibility(next: avro.Type, previous: avro.Type): string | undefined {
  try {
    next.createResolver(previous);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Normal form used to recognise a schema registered before (whitespace-insensitive). */
export function normaliseSchema(schema: string): string {
  return JSON.stringify(JSON.parse(schema));
}
