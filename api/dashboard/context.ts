import type { FastifyReply, FastifyRequest } from 'fastify';
import type {
  AlertApiServices,
  DeliveryKit,
  Destination,
  TestDelivery,
} from '../../processors/alerts/index.ts';
import type { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import type { Accounts, Plan, Principal, Project } from '../../projections/state/accounts.ts';
import type { ApiKeyUsage } from '../../projections/state/api-key-usage.ts';
import type { Memberships, Role } from '../../projections/state/memberships.ts';
import type { LinkSigner, People } from '../../projections/state/people.ts';
import type { Sessions } from '../../projections/state/sessions.ts';
import type { ToolUsage } from '../../projections/state/tool-usage.ts';
import { dashboardLink } from '../dashboard-paths.ts';
import type { SafeHtml } from '../html.ts';
import type { AgentAuth } from '../oauth/agent-auth.ts';
import type { UsageCounter } from '../plugins/usage.ts';
import type { View } from './layout.ts';
import type { AccountMail } from './mails.ts';
import { notFound, type Visits } from './visit.ts';

/** People, their sessions and organizations, and key usage: what the dashboard adds to the API's services. */
export interface PeopleServices {
  people: People;
  sessions: Sessions;
  memberships: Memberships;
  usage: ApiKeyUsage;
}

/** Requests allowed per window, per client address and per address typed in the form. */
export interface AttemptLimits {
  signIn: { perClient: number; perAccount: number; windowMs: number };
  reset: { perClient: number; perAccount: number; windowMs: number };
  signUp: { perClient: number; windowMs: number };
}

export const ATTEMPT_LIMITS: AttemptLimits = {
  signIn: { perClient: 20, perAccount: 10, windowMs: 10 * 60_000 },
  reset: { perClient: 10, perAccount: 3, windowMs: 60 * 60_000 },
  signUp: { perClient: 10, windowMs: 60 * 60_000 },
};

/** An entity search result as the alert form's picker shows it. */
export interface EntityHit {
  id: string;
  name: string;
  entity_type: 'PERSON' | 'COMPANY' | 'KNOWLEDGE_GRAPH_ENTITY';
}

/** The team-chat app of this deployment, for the OAuth v2 install. */
export interface ChatOAuthSettings {
  clientId: string;
  clientSecret: string;
  /** The platform's authorization page (`EARSHOT_CHAT_AUTHORIZE_URL`). */
  authorizeUrl: string;
}

/** What every page module is given. */
export interface DashboardContext extends PeopleServices {
  accounts: Accounts;
  /** Alerting's services: alert rules and reads, previews, connections, notification emails. */
  alerting: AlertApiServices;
  /** Webhook and team-chat connections, the chat API, the outbound guard (`alerting.delivery`). */
  delivery: DeliveryKit;
  /** Entity names. */
  catalog: CatalogReader;
  /** People, companies and topics by name, as `GET /v1/entities/search` ranks them (absent: no search index). */
  entitySearch?: (q: string) => Promise<EntityHit[]>;
  /** Absent: the install from the dashboard is not configured. */
  chatOAuth?: ChatOAuthSettings;
  /** OAuth for agent clients: the consent step and the grants people approved. */
  agentAuth: AgentAuth;
  /** Tool calls per project, tool and day (the agent-tool server counts them). */
  toolUsage: ToolUsage;
  /** Signs the `state` of a team-chat install. */
  chatInstallLinks: LinkSigner;
  /** A webhook URL as the outbound guard reads it (canonical, or why it is refused). */
  destination(url: string): Promise<Destination>;
  /** A signed test send to a live webhook connection of the project (404 when there is none). */
  testWebhook(projectId: string, connectionId: string): Promise<TestDelivery>;
  usageCounter: UsageCounter;
  visits: Visits;
  mail: AccountMail;
  limits: AttemptLimits;
  /** Public address of the dashboard (`{dashboard_url}`), for mailed links. */
  dashboardUrl: string;
  /** Path prefix of the pages as people reach them (the path of `dashboardUrl`). */
  base: string;
  /** Public base URL of the API, for examples on the pages. */
  publicUrl: string;
  /** The requests per minute a key of a plan may make (the plan's, unless configured for all keys). */
  requestsPerMinute(plan: Plan): number;
  /** The view of a page: links, the session's form token, the signed-in person. */
  view(request: FastifyRequest, csrf?: string): View;
  /** Sends a page (`text/html`, never cached). */
  send(reply: FastifyReply, page: SafeHtml, status?: number): FastifyReply;
  /** An absolute link to a page, for mails. */
  link(path: string): string;
  /** The project of a signed-in member (404 for anyone else), with its plan. */
  memberProject(request: FastifyRequest, projectId: string): Promise<ProjectAccess>;
}

export interface ProjectAccess {
  project: Project;
  plan: Plan;
  role: Role;
  /** The project as the services of the API see the caller: as a key of the project would. */
  principal: Principal;
}

export function createLink(dashboardUrl: string) {
  return (path: string) => dashboardLink(dashboardUrl, path);
}

/** The project a signed-in member asks for, or 404 (also when it exists in another organization). */
export async function memberProject(
  ctx: Pick<DashboardContext, 'memberships' | 'visits'>,
  request: FastifyRequest,
  projectId: string,
): Promise<ProjectAccess> {
  const user = ctx.visits.requireUser(request);
  const found = projectId.length <= 200 ? await ctx.memberships.projectOf(user.id, projectId) : undefined;
  if (!found) throw notFound();
  const { plan } = found;
  return {
    project: found.project,
    plan,
    role: found.role,
    principal: {
      keyId: `user:${user.id}`,
      project: found.project,
      plan,
      entitlements: found.entitlements,
      expiresAt: null,
    },
  };
}
