/**
 * RFC 9457 problem documents. Every error the API returns is a ProblemError turned into
 * `application/problem+json` with a stable `error_code`.
 */
export interface FieldError {
  /** Where the offending value is: `query.limit`, `body.entities[0].entity_id`, `path.id`, `header.x-api-key`. */
  location: string;
  message: string;
  value?: unknown;
}

export interface Resolve {
  message: string;
  action: string;
  endpoint?: string;
  method?: string;
  url?: string;
}

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  error_code: string;
  errors: FieldError[];
  resolve?: Resolve;
  /** Why a payment was refused (payment problems only). */
  reason?: string;
}

/** The catalog of stable error codes with their status and title. */
export const ERROR_CODES = {
  invalid_json: { status: 400, title: 'Malformed request body' },
  bad_request: { status: 400, title: 'Bad request' },
  authentication_required: { status: 401, title: 'Authentication required' },
  invalid_api_key: { status: 401, title: 'Invalid API key' },
  api_key_expired: { status: 401, title: 'API key expired' },
  invalid_token: { status: 401, title: 'Invalid access token' },
  invalid_ingest_token: { status: 401, title: 'Invalid ingest token' },
  invalid_link_token: { status: 401, title: 'Invalid link token' },
  payment_required: { status: 402, title: 'Payment required' },
  payment_invalid: { status: 402, title: 'Payment refused' },
  payment_settlement_failed: { status: 402, title: 'Payment could not be settled' },
  payment_protocol_conflict: { status: 400, title: 'More than one payment protocol' },
  payments_unavailable: { status: 503, title: 'Payments cannot be taken now' },
  forbidden: { status: 403, title: 'Forbidden' },
  credential_management_forbidden: { status: 403, title: 'Credentials cannot be managed with an API key' },
  premium_required: { status: 403, title: 'Premium plan required' },
  entitlement_required: { status: 403, title: 'Available by arrangement' },
  plan_does_not_support_alerts: { status: 403, title: 'Plan does not include alerts' },
  add_on_required: { status: 403, title: 'Alerts add-on required' },
  not_found: { status: 404, title: 'Not found' },
  route_not_found: { status: 404, title: 'No such route' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  request_timeout: { status: 408, title: 'Request timeout' },
  conflict: { status: 409, title: 'Conflict' },
  notification_email_exists: { status: 409, title: 'Notification email already exists' },
  notification_email_in_use: { status: 409, title: 'Notification email in use' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  uri_too_long: { status: 414, title: 'URI too long' },
  range_not_satisfiable: { status: 416, title: 'Range not satisfiable' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  validation_error: { status: 422, title: 'Validation error' },
  unprocessable_entity: { status: 422, title: 'Unprocessable entity' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key used for another request' },
  rate_limited: { status: 429, title: 'Too many requests' },
  request_header_fields_too_large: { status: 431, title: 'Request header fields too large' },
  internal_error: { status: 500, title: 'Internal server error' },
  not_implemented: { status: 501, title: 'Not implemented' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
  semantic_search_unavailable: { status: 503, title: 'Semantic search unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class ProblemError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly options: {
      errors?: FieldError[];
      resolve?: Resolve;
      headers?: Record<string, string>;
      status?: number;
      /** Why a payment was refused (a stable code, `payment_invalid` and its kin). */
      reason?: string;
    } = {},
  ) {
    super(detail);
    this.name = 'ProblemError';
    this.status = options.status ?? ERROR_CODES[code].status;
  }
}

export function problem(
  code: ErrorCode,
  detail: string,
  options?: ConstructorParameters<typeof ProblemError>[2],
): ProblemError {
  return new ProblemError(code, detail, options);
}

/** A 422 `validation_error` naming one offending parameter. */
export function invalidParameter(location: string, message: string, value?: unknown): ProblemError {
  return new ProblemError('validation_error', `${location}: ${message}`, {
    errors: [{ location, message, value }],
  });
}

export function toDocument(err: ProblemError, docsUrl: string, instance: string): ProblemDocument {
  const doc: ProblemDocument = {
    type: `${docsUrl.replace(/\/$/, '')}/errors/${err.code}`,
    title: ERROR_CODES[err.code].title,
    status: err.status,
    detail: err.detail,
    instance,
    error_code: err.code,
    errors: err.options.errors ?? [],
  };
  if (err.options.resolve) doc.resolve = err.options.resolve;
  if (err.options.reason) doc.reason = err.options.reason;
  return doc;
}
