import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { dashboardPaths as paths } from '../../dashboard-paths.ts';
import { type Fragment, html } from '../../html.ts';
import type { DashboardContext } from '../context.ts';
import { queryOf } from '../forms.ts';
import { action, href, notice, page, projectTabs, table, when } from '../layout.ts';
import { notFound, PageError, Redirect } from '../visit.ts';

const HIDE = { schema: { hide: true } } as const;
/** What the app asks the workspace for: posting, and listing the channels to post to. */
export const CHAT_SCOPES = 'chat:write,channels:read,groups:read';
const INSTALL_TTL_MS = 10 * 60_000;

type InstallState = { p: string; s: string; x: number };

const sessionTag = (sessionId: string) =>
  createHash('sha256').update(sessionId).digest('base64url').slice(0, 22);

/**
 * Team chat: a project's connected workspaces with the channels each can post to (read from the
 * platform), deletion, and the install through the platform's OAuth v2 flow: "Add to team chat"
 * sends the person to the platform's authorization page with a signed `state` (this session,
 * this project, 10 minutes); the platform sends them back to the callback with a code, which
 * `oauth.v2.access` (against `EARSHOT_CHAT_API_URL`, with the app's client id and secret)
 * exchanges for the bot token the connection keeps, sealed.
 */
export function chatPages(app: FastifyInstance, ctx: DashboardContext): void {
  const { delivery } = ctx;
  const redirectUri = ctx.link(paths.chatCallback());

  app.get<{ Params: { projectId: string } }>('/projects/:projectId/chat', HIDE, async (request, reply) => {
    const { project } = await ctx.memberProject(request, request.params.projectId);
    const view = ctx.view(request);
    const connections = await delivery.chat.list(project.id, undefined, 100);
    const withChannels = await Promise.all(
      connections.map(async (c) => {
        const usable = await delivery.chat.get(project.id, c.id);
        const res = usable ? await delivery.chatApi.channels(usable.token, { limit: 100 }) : undefined;
        return { connection: c, channels: res?.ok ? res.data!.channels : undefined, error: res?.error };
      }),
    );
    const done = queryOf(request, 'done');
    const failed = queryOf(request, 'error');
    const install: Fragment = ctx.chatOAuth
      ? html`<p><a class="button" href="${href(view, `${paths.chat(project.id)}/install`)}">Add to team chat</a></p>
<p class="hint">You choose the workspace on the chat platform and allow the app to post; you come back here afterwards.</p>`
      : notice(
          html`Installing from the dashboard is not configured on this deployment (<code>EARSHOT_CHAT_CLIENT_ID</code> and <code>EARSHOT_CHAT_CLIENT_SECRET</code>). An operator can connect a workspace with <code>earshot chat connect --project ${project.id} --token …</code>.`,
          'warning',
        );
    return ctx.send(
      reply,
      page(view, {
        title: 'Team chat',
        crumbs: [
          { label: 'Overview', path: paths.home() },
          { label: project.name, path: paths.project(project.id) },
          { label: 'Team chat' },
        ],
        tabs: projectTabs(view, project.id, 'Team chat'),
        body: html`${done === 'installed' ? notice('The workspace is connected. Choose its channels in an alert’s notifications.', 'success') : ''}${
          done === 'deleted'
            ? notice('The connection was deleted; alerts posting through it skip it.', 'success')
            : ''
        }${failed ? notice(html`The install did not complete: ${failed}.`, 'warning') : ''}
<p>Alerts can post to channels of a connected workspace. The app posts only to channels it has been added to.</p>
${install}
${
  withChannels.length === 0
    ? html`<p class="empty">No workspace is connected.</p>`
    : withChannels.map(
        ({ connection: c, channels, error }) => html`<section class="card">
<h2>${c.team_name ?? c.name}</h2>
<p>Connection <code>${c.id}</code>, workspace <code>${c.team_id ?? '—'}</code>, connected ${when(c.created_at)}.</p>
${
  channels
    ? table({
        caption: `Channels of ${c.team_name ?? c.name}`,
        head: ['Channel', 'Id', 'Private', 'The app is in it'],
        rows: channels.map((ch) => [
          `#${ch.name}`,
          html`<code>${ch.id}</code>`,
          ch.is_private ? 'yes' : 'no',
          ch.is_member ? 'yes' : 'no — add it to post',
        ]),
      })
    : notice(
        html`The channels could not be read from the platform (${error ?? 'no answer'}). If the app was removed from the workspace, install it again.`,
        'warning',
      )
}
${action(view, `${paths.chat(project.id)}/${encodeURIComponent(c.id)}/delete`, 'Delete connection', {
  danger: true,
  confirm: `Delete the connection to ${c.team_name ?? c.name}? Alerts posting through it skip it.`,
})}
</section>`,
      )
}`,
      }),
    );
  });

  app.post<{ Params: { projectId: string; id: string } }>(
    '/projects/:projectId/chat/:id/delete',
    HIDE,
    async (request) => {
      const { project } = await ctx.memberProject(request, request.params.projectId);
      if (!(await delivery.chat.delete(project.id, request.params.id))) throw notFound();
      throw new Redirect(`${ctx.base}${paths.chat(project.id)}?done=deleted`);
    },
  );

  // The install: to the platform with a signed state, and back.
  app.get<{ Params: { projectId: string } }>('/projects/:projectId/chat/install', HIDE, async (request) => {
    const { project } = await ctx.memberProject(request, request.params.projectId);
    const oauth = ctx.chatOAuth;
    if (!oauth) throw notFound();
    const state = ctx.chatInstallLinks.sign({
      p: project.id,
      s: sessionTag(request.visit.session!.id),
      x: Date.now() + INSTALL_TTL_MS,
    } satisfies InstallState);
    const url = new URL(oauth.authorizeUrl);
    url.searchParams.set('client_id', oauth.clientId);
    url.searchParams.set('scope', CHAT_SCOPES);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('state', state);
    throw new Redirect(url.href);
  });

  app.get(paths.chatCallback(), HIDE, async (request) => {
    const user = ctx.visits.requireUser(request);
    const oauth = ctx.chatOAuth;
    if (!oauth) throw notFound();
    const raw = queryOf(request, 'state') ?? '';
    const state = raw.length <= 1000 ? ctx.chatInstallLinks.verify<InstallState>(raw) : undefined;
    if (
      !state ||
      typeof state.p !== 'string' ||
      typeof state.x !== 'number' ||
      state.x <= Date.now() ||
      state.s !== sessionTag(request.visit.session!.id)
    ) {
      throw new PageError(
        400,
        'This install link does not work',
        'It has expired or was started in another session. Start the install again from the project’s team chat page.',
      );
    }
    const { project } = await ctx.memberProject(request, state.p);
    const back = `${ctx.base}${paths.chat(project.id)}`;
    const denied = queryOf(request, 'error');
    if (denied) throw new Redirect(`${back}?error=${encodeURIComponent(denied.slice(0, 100))}`);
    const code = queryOf(request, 'code') ?? '';
    if (code.length === 0 || code.length > 1000) throw new Redirect(`${back}?error=no_code`);
    const res = await delivery.chatApi.oauthAccess({
      clientId: oauth.clientId,
      clientSecret: oauth.clientSecret,
      code,
      redirectUri,
    });
    if (!res.ok || !res.data) {
      request.log.warn(
        { error: res.error, project: project.id },
        'team-chat install refused by the platform',
      );
      throw new Redirect(`${back}?error=${encodeURIComponent((res.error ?? 'no answer').slice(0, 100))}`);
    }
    const connection = await delivery.chat.create({
      projectId: project.id,
      name: res.data.team ?? 'team chat',
      token: res.data.token,
      teamId: res.data.team_id,
      teamName: res.data.team,
      botUserId: res.data.bot_user_id,
    });
    request.log.info(
      { user: user.id, project: project.id, connection: connection.id },
      'team-chat workspace installed',
    );
    throw new Redirect(`${back}?done=installed`);
  });
}
