/**
 * Why the alert rules refuse a request: the API's stable error code for it, a sentence, and
 * each offending field of the input as a path into the alert as it was given
 * (`entities[0].entity_id`, `notifications[1].email`, `filters.speaker_roles`, `kind`). Routes
 * turn it into a problem document; nothing here knows about HTTP.
 */
export type RefusalCode =
  | 'validation_error'
  | 'unprocessable_entity'
  | 'plan_does_not_support_alerts'
  | 'add_on_required';

export interface RuleViolation {
  /** The offending field of the input. */
  field: string;
  message: string;
  value?: unknown;
}

export class AlertRuleError extends Error {
  constructor(
    readonly code: RefusalCode,
    message: string,
    readonly violations: RuleViolation[] = [],
  ) {
    super(message);
    this.name = 'AlertRuleError';
  }
}

/** Each violation of a validation, at once. */
export function validationFailed(violations: RuleViolation[]): never {
  throw new AlertRuleError(
    'validation_error',
    violations.map((v) => `${v.field} ${v.message}`).join('; '),
    violations,
  );
}
