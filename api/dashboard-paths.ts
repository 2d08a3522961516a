/**
 * The dashboard's pages, relative to its base (`{dashboard_url}`, by default the API's public URL
 * + `/dashboard`). Pages link with these, and so do API answers that send a person to a page
 * (problem `resolve.url`, `/auth.md`, `/llms.txt`, OpenAPI descriptions, webhook envelopes).
 */
/** An id in a path; a `{placeholder}` is kept as it is (for documents describing the pages). */
const e = (v: string) => (/^\{[A-Za-z]+\}$/.test(v) ? v : encodeURIComponent(v));

export const dashboardPaths = {
  home: () => '/',
  signUp: () => '/sign-up',
  signIn: () => '/sign-in',
  signOut: () => '/sign-out',
  verify: () => '/verify',
  resendVerification: () => '/verify/resend',
  reset: () => '/reset',
  resetNew: () => '/reset/new',
  account: () => '/account',
  acceptInvitation: () => '/invitations/accept',
  organization: (orgId: string) => `/orgs/${e(orgId)}`,
  project: (projectId: string) => `/projects/${e(projectId)}`,
  keys: (projectId: string) => `/projects/${e(projectId)}/keys`,
  usage: (projectId: string) => `/projects/${e(projectId)}/usage`,
  plan: (projectId: string) => `/projects/${e(projectId)}/plan`,
  addOns: (projectId: string) => `/projects/${e(projectId)}/plan#add-ons`,
  webhooks: (projectId: string) => `/projects/${e(projectId)}/webhooks`,
  chat: (projectId: string) => `/projects/${e(projectId)}/chat`,
  chatCallback: () => '/chat/oauth/callback',
  alerts: (projectId: string) => `/projects/${e(projectId)}/alerts`,
  newAlert: (projectId: string) => `/projects/${e(projectId)}/alerts/new`,
  alert: (alertId: string) => `/alerts/${e(alertId)}`,
  editAlert: (alertId: string) => `/alerts/${e(alertId)}/edit`,
  delivery: (deliveryId: string) => `/deliveries/${e(deliveryId)}`,
  notificationEmails: (orgId: string) => `/orgs/${e(orgId)}/notification-emails`,
  oauthConsent: () => '/oauth/consent',
  agents: (projectId: string) => `/projects/${e(projectId)}/agents`,
} as const;

/** An absolute link to a dashboard page: `dashboardUrl` + the page's path. */
export function dashboardLink(dashboardUrl: string, path: string): string {
  return `${dashboardUrl.replace(/\/$/, '')}${path === '/' ? '/' : path}`;
}
