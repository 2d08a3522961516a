/**
 * The alerting module's public entry: what routes, infra wiring and other modules use. Nothing
 * outside processors/alerts/ imports a file of the module but this one (tests may).
 * docs/alerts.md ("Where the code is") describes the inside.
 */

// Services for the HTTP routes (api/app.ts builds them once and passes them to each route).
export { type AlertApiExtras, type AlertApiServices, alertApiServices } from './api-services.ts';
// Delivery: the kit and what it is built from (infra/composition.ts), destinations, test sends,
// chat-platform errors, notification emails, secrets.
export { TOKEN_REJECTED_ERRORS } from './delivery/channels/chat-api.ts';
export { type Mailer, type OutgoingMail, SmtpMailer } from './delivery/channels/mailer.ts';
export type { NotificationEmailRow } from './delivery/channels/notification-emails.ts';
// A local receiver's session (`earshot webhooks listen`) and how it checks what it receives.
export { verifyWebhook } from './delivery/channels/webhook-signature.ts';
export type { ChatConnection } from './delivery/connections/chat-connections.ts';
export {
  checkDestination,
  type Destination,
  storedDestination,
} from './delivery/connections/destinations.ts';
export type { WebhookConnection } from './delivery/connections/webhook-connections.ts';
export { createDeliveryKit, type DeliveryKit } from './delivery/kit.ts';
export {
  closeListenSession,
  LISTEN_CONNECTION_NAME,
  LISTEN_LEASE_MS,
  ListenRefusedError,
  type ListenSession,
  openListenSession,
  renewListenSession,
} from './delivery/listen.ts';
// The outbound guard and the HTTP client through it (also given to the feed poller by infra).
export { allowlistProblem, canonicalUrl, OutboundGuard } from './delivery/outbound/outbound-guard.ts';
export { OutboundHttp } from './delivery/outbound/outbound-http.ts';
export { RetrySchedule } from './delivery/retry-schedule.ts';
export { loadSecretsKey, SecretBox, SIGNED_TOKEN_PATTERN, TokenSigner } from './delivery/secrets.ts';
export { StateDeliveryContent } from './delivery/state-content.ts';
export { sendTestToConnection, sendTestWebhooks, type TestDelivery } from './delivery/test-send.ts';
// The alert model.
export type { Alert, AlertFilters } from './model.ts';
// What alerting runs in the pipeline: steps and timers with their roles, inputs and outputs.
export { AlertingPipeline } from './pipeline.ts';
export {
  ChatChannelSchema,
  ChatConnectionSchema,
  chatConnectionView,
  TestDeliverySchema,
  WebhookConnectionSchema,
  webhookConnectionView,
} from './presentation/connections.ts';
// Request and response schemas and views of the alert endpoints.
export {
  AlertSchema,
  CreateAlertBody,
  DeliveryLandingSchema,
  DeliverySchema,
  MatchListItem,
  MatchSchema,
  MonitorSchema,
  PatchAlertBody,
  PreviewBody,
  PreviewSchema,
} from './presentation/http-schemas.ts';
export { NotificationEmailSchema, notificationEmailView } from './presentation/notification-emails.ts';
export { alertView, previewView } from './presentation/views.ts';
// Podcast bias for match documents (the senders' cached reader).
export { analyticsBiasReader, cachedBiasReader } from './reads/bias.ts';
// Why the rules refuse a request.
export { AlertRuleError, type RefusalCode, type RuleViolation } from './rules/refusal.ts';
export { ApiKey, ChatSummarizer, type ChatSummarizerOptions } from './summaries/chat-summarizer.ts';
export { extractiveSummary } from './summaries/extractive.ts';
