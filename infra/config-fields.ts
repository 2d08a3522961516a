import { FormatRegistry, Type } from '@sinclair/typebox';

if (!FormatRegistry.Has('uri')) FormatRegistry.Set('uri', (v) => URL.canParse(v));

/** An optional URL; `unset` says what the service does without it (shown in docs/configuration.md). */
export const OptionalUrl = (description: string, unset: string) =>
  Type.Optional(Type.String({ format: 'uri', description, unset }));
