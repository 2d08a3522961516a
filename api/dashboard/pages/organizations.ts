import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Project, randomString, slugify } from '../../../projections/state/accounts.ts';
import {
  INVITATION_TTL_MS,
  MembershipError,
  ROLES,
  type Role,
} from '../../../projections/state/memberships.ts';
import { sqlState, UNIQUE_VIOLATION } from '../../../projections/state/state-store.ts';
import { dashboardPaths as paths } from '../../dashboard-paths.ts';
import { type Fragment, html } from '../../html.ts';
import type { DashboardContext } from '../context.ts';
import { emailProblem, formOf, nameProblem, queryOf } from '../forms.ts';
import {
  action,
  errorSummary,
  type FieldErrors,
  field,
  form,
  href,
  notice,
  page,
  select,
  table,
  when,
} from '../layout.ts';
import { notFound, PageError, Redirect } from '../visit.ts';

const HIDE = { schema: { hide: true } } as const;

/** The plan a project gets when it is created in the dashboard; an operator changes plans. */
export const NEW_PROJECT_PLAN = 'starter';

const DONE: Record<string, string> = {
  invited: 'The invitation is on its way.',
  revoked: 'The invitation was revoked.',
  role: 'The role was changed.',
  removed: 'The member was removed.',
  joined: 'Welcome: you are now a member of this organization.',
};

/**
 * The overview (a person's organizations and their projects), an organization's page (projects,
 * members, invitations) and accepting an invitation. Anyone in an organization creates projects;
 * owners invite, change roles and remove members. Someone outside an organization gets 404 for
 * every page and form of it.
 */
export function organizationPages(app: FastifyInstance, ctx: DashboardContext): void {
  const { memberships, accounts, visits } = ctx;

  app.get(paths.home(), HIDE, async (request, reply) => {
    const user = visits.requireUser(request);
    const view = ctx.view(request);
    const orgs = await memberships.organizationsOf(user.id);
    const sections = await Promise.all(
      orgs.map(async (org) => {
        const projects = await accounts.projectsOf(org.id, undefined, 100);
        return html`<section class="card">
<h2><a href="${href(view, paths.organization(org.id))}">${org.name}</a> <span class="badge">${org.role}</span></h2>
${
  projects.length === 0
    ? html`<p class="empty">No projects yet. <a href="${href(view, paths.organization(org.id))}#new-project">Create one</a> to mint an API key.</p>`
    : html`<ul>${projects.map((p) => html`<li><a href="${href(view, paths.project(p.id))}">${p.name}</a> <span class="badge">${p.plan_code}</span></li>`)}</ul>`
}
</section>`;
      }),
    );
    return ctx.send(
      reply,
      page(view, {
        title: 'Your organizations',
        body:
          orgs.length === 0
            ? html`<p class="empty">You are not in any organization.</p>`
            : html`<div class="cards">${sections}</div>`,
      }),
    );
  });

  /** The organization of a signed-in member, or 404. */
  async function memberOrg(request: FastifyRequest, orgId: string) {
    const user = visits.requireUser(request);
    const org = await memberships.organizationOf(user.id, orgId);
    if (!org) throw notFound();
    return { user, org };
  }
  async function ownerOrg(request: FastifyRequest, orgId: string) {
    const found = await memberOrg(request, orgId);
    if (found.org.role !== 'owner')
      throw new PageError(403, 'Owners only', 'Only an owner of this organization can do this.');
    return found;
  }

  const orgPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    orgId: string,
    opts: { errors?: FieldErrors; values?: Record<string, string>; status?: number } = {},
  ) => {
    const { user, org } = await memberOrg(request, orgId);
    const view = ctx.view(request);
    const owner = org.role === 'owner';
    const [projects, members, invitations] = await Promise.all([
      accounts.projectsOf(org.id, undefined, 100),
      memberships.members(org.id),
      owner ? memberships.pendingInvitations(org.id) : Promise.resolve([]),
    ]);
    const errors = opts.errors ?? {};
    const done = DONE[queryOf(request, 'done') ?? ''];
    const roleOptions = ROLES.map((r) => ({ value: r, label: r === 'owner' ? 'Owner' : 'Member' }));
    const memberRows = members.map((m) => {
      const self = m.user_id === user.id;
      const controls: Fragment = owner
        ? html`${form(
            view,
            `${paths.organization(org.id)}/members/${encodeURIComponent(m.user_id)}/role`,
            html`<label class="visually-hidden" for="role-${m.user_id}">Role of ${m.email}</label>
<select id="role-${m.user_id}" name="role">${roleOptions.map((o) => html`<option value="${o.value}"${o.value === m.role ? html` selected` : ''}>${o.label}</option>`)}</select>
<button type="submit" class="secondary">Change role<span class="visually-hidden"> of ${m.email}</span></button>`,
            { inline: true },
          )}
${action(
  view,
  `${paths.organization(org.id)}/members/${encodeURIComponent(m.user_id)}/remove`,
  self ? 'Leave' : 'Remove',
  {
    danger: true,
    context: self ? org.name : m.email,
    confirm: self ? `Leave ${org.name}?` : `Remove ${m.email} from ${org.name}?`,
  },
)}`
        : self
          ? action(
              view,
              `${paths.organization(org.id)}/members/${encodeURIComponent(m.user_id)}/remove`,
              'Leave',
              {
                danger: true,
                confirm: `Leave ${org.name}?`,
              },
            )
          : '';
      return [html`${m.email}${self ? ' (you)' : ''}`, m.role, when(m.created_at), controls];
    });
    return ctx.send(
      reply,
      page(view, {
        title: org.name,
        crumbs: [{ label: 'Overview', path: paths.home() }, { label: org.name }],
        body: html`${done ? notice(done, 'success') : ''}${errorSummary(errors, { name: 'Project name', email: 'Email address' })}
<p>Your role: <strong>${org.role}</strong>. Organization id <code>${org.id}</code>.</p>
<h2 id="projects">Projects</h2>
${table({
  caption: 'Projects',
  hideCaption: true,
  head: ['Project', 'Plan', 'Created'],
  rows: projects.map((p: Project) => [
    html`<a href="${href(view, paths.project(p.id))}">${p.name}</a>`,
    p.plan_code,
    when(p.created_at),
  ]),
  empty: 'No projects yet.',
})}
<h3 id="new-project">Create a project</h3>
<p>A project holds API keys, alerts and connections. New projects start on the Starter plan; see each project's plan page for how to upgrade.</p>
${form(
  view,
  `${paths.organization(org.id)}/projects`,
  html`${field({ name: 'name', label: 'Project name', required: true, maxlength: 100, value: opts.values?.name, error: errors.name })}
<div class="actions"><button type="submit">Create project</button></div>`,
  { label: 'Create a project' },
)}
<h2 id="notification-emails">Notification emails</h2>
<p>The addresses alerts of this organization's projects may mail: <a href="${href(view, paths.notificationEmails(org.id))}">notification emails</a>.</p>
<h2 id="members">Members</h2>
${table({ caption: 'Members', hideCaption: true, head: ['Member', 'Role', 'Since', owner ? 'Manage' : ''], rows: memberRows })}
${
  owner
    ? html`<h3 id="invite">Invite someone</h3>
<p>They get a mail with a link; they join after signing up or in with that address. Owners can invite and manage members.</p>
${form(
  view,
  `${paths.organization(org.id)}/invitations`,
  html`${field({ name: 'email', label: 'Email address', type: 'email', required: true, maxlength: 254, value: opts.values?.email, error: errors.email })}
${select({ name: 'role', label: 'Role', options: roleOptions, value: 'member' })}
<div class="actions"><button type="submit">Send the invitation</button></div>`,
  { label: 'Invite someone' },
)}
${
  invitations.length > 0
    ? table({
        caption: 'Pending invitations',
        head: ['Address', 'Role', 'Expires', ''],
        rows: invitations.map((i) => [
          i.email,
          i.role,
          when(i.expires_at),
          action(
            view,
            `${paths.organization(org.id)}/invitations/${encodeURIComponent(i.id)}/revoke`,
            'Revoke',
            { danger: true, context: `the invitation of ${i.email}` },
          ),
        ]),
      })
    : ''
}`
    : ''
}`,
      }),
      opts.status ?? 200,
    );
  };

  app.get<{ Params: { orgId: string } }>('/orgs/:orgId', HIDE, async (request, reply) =>
    orgPage(request, reply, request.params.orgId),
  );

  app.post<{ Params: { orgId: string } }>('/orgs/:orgId/projects', HIDE, async (request, reply) => {
    const { org, user } = await memberOrg(request, request.params.orgId);
    const name = formOf(request).one('name');
    const bad = nameProblem(name, 'project name');
    if (bad) return orgPage(request, reply, org.id, { errors: { name: bad }, values: { name }, status: 422 });
    let project: Project | undefined;
    for (let attempt = 0; !project; attempt++) {
      // A slug taken in the organization gets a random suffix.
      const slug =
        attempt === 0
          ? slugify(name)
          : `${slugify(name).slice(0, 50)}-${randomString('0123456789abcdef', 6)}`;
      try {
        project = await accounts.createProject({
          organizationId: org.id,
          name,
          slug,
          plan: NEW_PROJECT_PLAN,
        });
      } catch (err) {
        if (sqlState(err) !== UNIQUE_VIOLATION || attempt >= 3) throw err;
      }
    }
    request.log.info({ user: user.id, project: project.id }, 'project created');
    throw new Redirect(`${ctx.base}${paths.project(project.id)}?done=created`);
  });

  app.post<{ Params: { orgId: string } }>('/orgs/:orgId/invitations', HIDE, async (request, reply) => {
    const { org, user } = await ownerOrg(request, request.params.orgId);
    const f = formOf(request);
    const email = f.one('email');
    const role = (ROLES as readonly string[]).includes(f.one('role')) ? (f.one('role') as Role) : 'member';
    const bad = emailProblem(email);
    if (bad)
      return orgPage(request, reply, org.id, { errors: { email: bad }, values: { email }, status: 422 });
    const { token } = await memberships.invite({ organizationId: org.id, email, role, invitedBy: user.id });
    ctx.mail.invitation(
      email,
      org.name,
      user.email,
      `${ctx.link(paths.acceptInvitation())}?token=${encodeURIComponent(token)}`,
      INVITATION_TTL_MS / 86_400_000,
    );
    throw new Redirect(`${ctx.base}${paths.organization(org.id)}?done=invited#members`);
  });

  app.post<{ Params: { orgId: string; id: string } }>(
    '/orgs/:orgId/invitations/:id/revoke',
    HIDE,
    async (request) => {
      const { org } = await ownerOrg(request, request.params.orgId);
      if (!(await memberships.revokeInvitation(org.id, request.params.id))) throw notFound();
      throw new Redirect(`${ctx.base}${paths.organization(org.id)}?done=revoked#members`);
    },
  );

  const changeMember = async (
    request: FastifyRequest,
    orgId: string,
    userId: string,
    role: Role | undefined,
  ) => {
    const { org, user } = await memberOrg(request, orgId);
    // A member may only leave; owners change anyone.
    if (org.role !== 'owner' && !(role === undefined && userId === user.id)) throw notFound();
    try {
      if (!(await memberships.setRole(org.id, userId, role))) throw notFound();
    } catch (err) {
      if (err instanceof MembershipError) throw new PageError(409, 'Not possible', err.message);
      throw err;
    }
    if (role === undefined && userId === user.id) throw new Redirect(`${ctx.base}/`);
    throw new Redirect(`${ctx.base}${paths.organization(org.id)}?done=${role ? 'role' : 'removed'}#members`);
  };
  app.post<{ Params: { orgId: string; userId: string } }>(
    '/orgs/:orgId/members/:userId/role',
    HIDE,
    async (request) => {
      const role = formOf(request).one('role');
      if (!(ROLES as readonly string[]).includes(role))
        throw new PageError(422, 'Not a role', 'Choose owner or member.');
      return changeMember(request, request.params.orgId, request.params.userId, role as Role);
    },
  );
  app.post<{ Params: { orgId: string; userId: string } }>(
    '/orgs/:orgId/members/:userId/remove',
    HIDE,
    async (request) => changeMember(request, request.params.orgId, request.params.userId, undefined),
  );

  // Invitations.
  const invalidInvitation = () =>
    new PageError(
      400,
      'This invitation does not work',
      'The invitation is invalid, already accepted, revoked or expired. Ask for a new one.',
    );

  app.get(paths.acceptInvitation(), HIDE, async (request, reply) => {
    const token = queryOf(request, 'token') ?? '';
    const invitation = token.length <= 200 ? await memberships.invitation(token) : undefined;
    if (!invitation) throw invalidInvitation();
    const here = `${ctx.base}${paths.acceptInvitation()}?token=${encodeURIComponent(token)}`;
    const user = request.visit.user;
    const view = ctx.view(request);
    const matches = user && user.email.toLowerCase() === invitation.email.toLowerCase();
    const body = !user
      ? html`<p>Sign in, or create an account, with <strong>${invitation.email}</strong> to accept.</p>
<div class="actions"><a class="button" href="${href(view, paths.signIn())}?next=${encodeURIComponent(here)}">Sign in</a>
<a class="button secondary" href="${href(view, paths.signUp())}">Create an account</a></div>
<p class="hint">After confirming a new account's address, open this invitation's link again.</p>`
      : !matches
        ? notice(
            html`This invitation is for <strong>${invitation.email}</strong>, and you are signed in as <strong>${user.email}</strong>. Sign out and sign in with the invited address.`,
            'warning',
          )
        : form(
            view,
            paths.acceptInvitation(),
            html`<input type="hidden" name="token" value="${token}"><div class="actions"><button type="submit">Join ${invitation.organization_name}</button></div>`,
          );
    return ctx.send(
      reply,
      page(view, {
        title: `Join ${invitation.organization_name}`,
        body: html`<p>You are invited to <strong>${invitation.organization_name}</strong> as ${invitation.role === 'owner' ? 'an owner' : 'a member'}. The invitation expires ${when(invitation.expires_at)}.</p>${body}`,
      }),
    );
  });

  app.post(paths.acceptInvitation(), HIDE, async (request) => {
    const user = visits.requireUser(request);
    const token = formOf(request).one('token');
    const result =
      token.length <= 200
        ? await memberships.accept(token, user)
        : { ok: false as const, reason: 'invalid' as const };
    if (!result.ok) {
      if (result.reason === 'other_address')
        throw new PageError(
          403,
          'Another address',
          'This invitation is for another email address than the one you signed in with.',
        );
      throw invalidInvitation();
    }
    request.log.info({ user: user.id, organization: result.organization.id }, 'invitation accepted');
    throw new Redirect(`${ctx.base}${paths.organization(result.organization.id)}?done=joined`);
  });
}
