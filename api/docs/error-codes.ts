import type { ErrorCode } from '../problem.ts';

/** What each stable `error_code` means and what a client does about it: the page its `type` URL names. */
export interface ErrorCodeGuide {
  meaning: string;
  action: string;
}

export const ERROR_CODE_GUIDES: Record<ErrorCode, ErrorCodeGuide> = {
  invalid_json: {
    meaning: 'The request body is not valid JSON.',
    action: 'Send a JSON document with `Content-Type: application/json`.',
  },
  bad_request: {
    meaning: 'The request cannot be read as HTTP the API understands (a malformed header or parameter).',
    action: 'Check the request against the OpenAPI document; `detail` says what was wrong.',
  },
  authentication_required: {
    meaning: 'This endpoint needs a credential and the request carried none.',
    action: 'Send your API key in the `X-API-Key` header (see /auth.md).',
  },
  invalid_api_key: {
    meaning: 'The API key is unknown or revoked.',
    action: 'Check the key you send; mint a new one if it was revoked.',
  },
  api_key_expired: {
    meaning: 'The API key was minted with an expiry that has passed.',
    action: 'Mint a new key for the project and replace the expired one.',
  },
  invalid_token: {
    meaning:
      'An OAuth access token that is expired, revoked, issued for another resource or not issued here; or an OAuth access token sent to the REST API, which takes API keys only.',
    action:
      'On the agent-tool server: refresh the token (or authorize again). On the REST API: send an API key (see /auth.md).',
  },
  invalid_ingest_token: {
    meaning: 'The ingest token is unknown or revoked. Ingest takes ingest tokens, never API keys.',
    action:
      'Send a valid token in `X-Ingest-Token`; an operator mints one with `earshot ingest-tokens create`.',
  },
  invalid_link_token: {
    meaning: 'The token of a mailed link (verification, unsubscribe) is invalid, used or expired.',
    action: 'Ask for a new mail; each link works once and for a limited time.',
  },
  payment_required: {
    meaning:
      'This endpoint can be paid per request and the request carried neither an account credential nor a payment. The terms are in the `PAYMENT-REQUIRED` header (x402) and the `WWW-Authenticate: Payment` challenge.',
    action:
      'Send an API key, or sign the transfer the terms ask for and repeat the identical request with `PAYMENT-SIGNATURE` or `Authorization: Payment` (see /auth.md).',
  },
  payment_invalid: {
    meaning:
      'The payment was refused; `reason` says why (wrong amount, recipient, network or asset, an expired authorization or challenge, a signature or challenge that does not verify, one already used or in use by another request). Nothing was charged.',
    action: 'Sign a new payment against the fresh terms in this answer and repeat the request.',
  },
  payment_settlement_failed: {
    meaning:
      'The request was served but the transfer could not be executed, so the answer was withheld. Nothing was charged.',
    action: 'Sign a new payment against the fresh terms in this answer and repeat the request.',
  },
  payment_protocol_conflict: {
    meaning:
      'The request carried both an x402 `PAYMENT-SIGNATURE` and an `Authorization: Payment` credential.',
    action: 'Send one payment protocol per request.',
  },
  payments_unavailable: {
    meaning: 'This service offers payment terms but cannot verify or settle a payment right now.',
    action: 'Retry later, or use an API key.',
  },
  forbidden: {
    meaning: 'The credential is valid but may not do this.',
    action: '`detail` names what is missing; use a key of a project that has access.',
  },
  credential_management_forbidden: {
    meaning: 'API keys cannot mint, list or revoke API keys.',
    action: 'Manage keys in the dashboard, or ask an operator (`earshot keys`).',
  },
  premium_required: {
    meaning: 'This endpoint is part of a higher plan than the project has.',
    action: 'Upgrade the project’s plan; `resolve` says which plan includes it.',
  },
  entitlement_required: {
    meaning:
      'This surface is available by arrangement (the archive replay and bulk download) and the project has not been granted it.',
    action: 'Ask for it as `resolve` says; once an operator grants it, the same key works within seconds.',
  },
  plan_does_not_support_alerts: {
    meaning: 'The project’s plan does not include alerts.',
    action: 'Upgrade the plan to one that includes alerts.',
  },
  add_on_required: {
    meaning: 'Alerts need the alerts add-on on this plan, or every pack of it is in use.',
    action: 'Add an alerts pack to the project, or delete an alert you no longer need.',
  },
  not_found: {
    meaning: 'No resource has this id or slug (the route exists; what it names does not).',
    action: 'Check the id or slug; list the collection to find what exists.',
  },
  route_not_found: {
    meaning:
      'No route has this path: it is not an operation of this API (a word of another route in the place of an id, such as `/v1/podcasts/advertising/rankings`, counts as a path, not as a slug).',
    action: 'Check the path against `/openapi.json` or `/llms.txt`.',
  },
  method_not_allowed: {
    meaning: 'The path exists but not with this method.',
    action: 'Use one of the methods in the `Allow` header.',
  },
  request_timeout: {
    meaning: 'The request was not received in time.',
    action: 'Send the whole request promptly; retry.',
  },
  conflict: {
    meaning: 'The request conflicts with the current state of the resource.',
    action: '`detail` says what conflicts; read the resource again and retry.',
  },
  notification_email_exists: {
    meaning: 'The project already has this notification email.',
    action: 'Use the existing one; list them with `GET /v1/projects/{projectId}/notification-emails`.',
  },
  notification_email_in_use: {
    meaning: 'An alert still sends to this notification email, so it cannot be removed.',
    action: 'Remove the email from those alerts first, then delete it.',
  },
  payload_too_large: {
    meaning: 'The request body is larger than this endpoint accepts.',
    action: 'Send less per request (split an ingest batch, for example).',
  },
  uri_too_long: {
    meaning: 'The request line is longer than the server reads.',
    action: 'Send fewer or shorter parameters.',
  },
  range_not_satisfiable: {
    meaning:
      'The `Range` of a bulk download lies outside the representation (`Content-Range` gives its size).',
    action: 'Ask for bytes below that size, with `If-Range` set to the ETag you resume.',
  },
  unsupported_media_type: {
    meaning: 'The body’s content type is not one this endpoint reads.',
    action: 'Send `application/json` (or `application/x-ndjson` where documented).',
  },
  validation_error: {
    meaning: 'A parameter or body field is missing, malformed or out of range.',
    action: '`errors[]` names each offending field (`query.limit`, `body.entities[0].entity_id`) and why.',
  },
  unprocessable_entity: {
    meaning: 'The request holds a value that cannot be stored or searched as given.',
    action: 'Remove control characters or invalid text from the values you send.',
  },
  idempotency_key_reused: {
    meaning: 'This `Idempotency-Key` was used before with a different request body.',
    action: 'Use a new key for a new request; reuse a key only to retry the same request.',
  },
  rate_limited: {
    meaning:
      'Too many requests for this key, too many streams it holds open, or too many failed authentications from this address.',
    action: 'Wait the seconds in `Retry-After`; the plan sets the per-minute limit.',
  },
  request_header_fields_too_large: {
    meaning: 'The request headers are larger than the server reads.',
    action: 'Send fewer or smaller headers (cookies, long custom headers).',
  },
  internal_error: {
    meaning: 'Something failed on the server. It has been logged.',
    action: 'Retry later; if it persists, report the `instance` and the time.',
  },
  not_implemented: {
    meaning:
      'The server does not implement what the request asks for: an oEmbed `format` other than `json` (the oEmbed specification asks for 501 there).',
    action: 'Ask for `format=json`, or leave `format` out.',
  },
  service_unavailable: {
    meaning: 'A store or engine the request needs is unavailable for the moment.',
    action: 'Retry after the seconds in `Retry-After`.',
  },
  semantic_search_unavailable: {
    meaning:
      'Semantic search is not ready yet (the model is loading or lines are still being embedded), or it is off.',
    action: 'Use keyword search meanwhile; `/readyz` shows the progress of semantic search.',
  },
};
