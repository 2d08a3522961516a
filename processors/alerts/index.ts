/**
 * The alerting module's public entry: what routes, infra wiring and other modules use. Nothing
 * outside processors/alerts/ imports a file of the module but this one (tests may).
 * docs/alerts.md ("Where the code is") describes the inside.
 */

// Services for the HTTP routes (api/app.ts builds them once and passes them to each route).
export { type AlertApiExtras, type AlertApiServices, alertApiServices } from './api-services.ts';
// The alert model.
export type { Alert, AlertFilters } from './model.ts';
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
export { alertView, previewView } from './presentation/views.ts';
// Why the rules refuse a request.
export { AlertRuleError, type RefusalCode, type RuleViolation } from './rules/refusal.ts';
