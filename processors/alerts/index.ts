/**
 * The alerting module's public entry: what routes, infra wiring and other modules use. Nothing
 * outside processors/alerts/ imports a file of the module but this one (tests may).
 * docs/alerts.md ("Where the code is") describes the inside.
 */

// Services for the HTTP routes (api/app.ts builds them once and passes them to each route).
export { type AlertApiExtras, type AlertApiServices, alertApiServices } from './api-services.ts';
// Delivery: the kit, destinations, test sends, chat-platform errors, notification emails.
export { TOKEN_REJECTED_ERRORS } from './delivery/channels/chat-api.ts';
export type { NotificationEmailRow } from './delivery/channels/notification-emails.ts';
export { checkDestination, storedDestination } from './delivery/connections/destinations.ts';
export type { DeliveryKit } from './delivery/kit.ts';
export { SecretBox, SIGNED_TOKEN_PATTERN, TokenSigner } from './delivery/secrets.ts';
export { sendTestWebhooks } from './delivery/test-send.ts';
// The alert model.
export type { Alert, AlertFilters } from './model.ts';
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
// Why the rules refuse a request.
export { AlertRuleError, type RefusalCode, type RuleViolation } from './rules/refusal.ts';
