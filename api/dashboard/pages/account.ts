import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { passwordProblem } from '../../../projections/state/passwords.ts';
import { RESET_TTL_MS, VERIFICATION_TTL_MS } from '../../../projections/state/people.ts';
import { dashboardPaths as paths } from '../../dashboard-paths.ts';
import { type Fragment, html } from '../../html.ts';
import type { DashboardContext } from '../context.ts';
import { attemptLimit, emailProblem, formOf, nameProblem, queryOf } from '../forms.ts';
import { errorSummary, type FieldErrors, field, form, href, notice, page, when } from '../layout.ts';
import { PageError, Redirect, safeNext } from '../visit.ts';

const HIDE = { schema: { hide: true } } as const;
const LABELS = {
  email: 'Email address',
  password: 'Password',
  organization: 'Organization name',
  current: 'Current password',
  confirm: 'New password again',
};

/**
 * Accounts: sign-up (with the organization it creates), address verification, sign-in and out,
 * password reset by mail and password change. Messages never tell whether an address has an
 * account: sign-up and reset answer alike for both (the mailbox learns which it was).
 */
export function accountPages(app: FastifyInstance, ctx: DashboardContext): void {
  const { people, visits, mail } = ctx;
  const limitSignIn = attemptLimit(app, 'sign-in', ctx.limits.signIn);
  const limitReset = attemptLimit(app, 'reset', ctx.limits.reset);
  const limitSignUp = attemptLimit(app, 'sign-up', ctx.limits.signUp);
  const mailNote = (what: string): Fragment =>
    mail.configured
      ? ''
      : notice(
          html`Email is not configured on this deployment (<code>SMTP_URL</code> is unset): the ${what} was written to the service log instead.`,
          'warning',
        );

  // Sign-up.
  const signUpPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    values: { email?: string; organization?: string } = {},
    errors: FieldErrors = {},
  ) => {
    const csrf = await visits.formToken(request, reply);
    const view = ctx.view(request, csrf);
    return ctx.send(
      reply,
      page(view, {
        title: 'Create your account',
        body: html`${errorSummary(errors, LABELS)}
${form(
  view,
  paths.signUp(),
  html`${field({ name: 'email', label: LABELS.email, type: 'email', value: values.email, required: true, autocomplete: 'email', error: errors.email, maxlength: 254 })}
${field({ name: 'password', label: LABELS.password, type: 'password', required: true, autocomplete: 'new-password', hint: 'At least 10 characters.', error: errors.password, minlength: 10, maxlength: 1024 })}
${field({ name: 'organization', label: LABELS.organization, value: values.organization, required: true, autocomplete: 'organization', hint: 'Your company or team. You can invite others to it later.', error: errors.organization, maxlength: 100 })}
<div class="actions"><button type="submit">Create account</button></div>`,
)}
<p>Already have an account? <a href="${href(view, paths.signIn())}">Sign in</a>.</p>`,
      }),
      Object.keys(errors).length > 0 ? 422 : 200,
    );
  };

  app.get(paths.signUp(), HIDE, async (request, reply) => signUpPage(request, reply));
  app.post(paths.signUp(), HIDE, async (request, reply) => {
    await limitSignUp(request);
    const f = formOf(request);
    const values = { email: f.one('email'), organization: f.one('organization') };
    const password = f.one('password', { trim: false });
    const errors: FieldErrors = {};
    const bad = {
      email: emailProblem(values.email),
      password: passwordProblem(password, values.email),
      organization: nameProblem(values.organization, 'name for your organization'),
    };
    for (const [k, v] of Object.entries(bad)) if (v) errors[k] = v;
    if (Object.keys(errors).length > 0) return signUpPage(request, reply, values, errors);
    const result = await people.signUp({
      email: values.email,
      password,
      organizationName: values.organization,
    });
    if (result.created) {
      const token = people.verificationToken(result.user);
      mail.verification(result.user.email, verifyLink(ctx, token), VERIFICATION_TTL_MS / 3_600_000);
      request.log.info({ user: result.user.id, organization: result.organization.id }, 'account created');
    } else {
      mail.alreadyRegistered(result.user.email, ctx.link(paths.signIn()), ctx.link(paths.reset()));
    }
    const view = ctx.view(request);
    return ctx.send(
      reply,
      page(view, {
        title: 'Check your inbox',
        body: html`${mailNote('link')}
<p>We sent a mail to <strong>${values.email}</strong>. Follow its link to confirm the address, then sign in.</p>
<p>No mail after a few minutes? Look in your spam folder, or <a href="${href(view, paths.signIn())}">sign in</a> to have it sent again.</p>`,
      }),
    );
  });

  // Verification.
  app.get(paths.verify(), HIDE, async (request, reply) => {
    const token = queryOf(request, 'token') ?? '';
    const user = token.length <= 2000 ? await people.verify(token) : undefined;
    const view = ctx.view(request);
    if (!user) {
      const csrf = await visits.formToken(request, reply);
      const v = ctx.view(request, csrf);
      return ctx.send(
        reply,
        page(v, {
          title: 'This link does not work',
          body: html`<p>The confirmation link is invalid or has expired. Ask for a new one:</p>
${resendForm(v)}`,
        }),
        400,
      );
    }
    request.log.info({ user: user.id }, 'email address verified');
    return ctx.send(
      reply,
      page(view, {
        title: 'Address confirmed',
        body: html`${notice(html`<strong>${user.email}</strong> is confirmed.`, 'success')}
<p><a class="button" href="${href(view, view.user ? paths.home() : paths.signIn())}">${view.user ? 'Go to the overview' : 'Sign in'}</a></p>`,
      }),
    );
  });

  app.post(paths.resendVerification(), HIDE, async (request, reply) => {
    await limitReset(request);
    const email = formOf(request).one('email');
    const user = emailProblem(email) ? undefined : await people.byEmail(email);
    if (user && !user.email_verified_at) {
      mail.verification(
        user.email,
        verifyLink(ctx, people.verificationToken(user)),
        VERIFICATION_TTL_MS / 3_600_000,
      );
    }
    const view = ctx.view(request);
    return ctx.send(
      reply,
      page(view, {
        title: 'Check your inbox',
        body: html`${mailNote('link')}<p>If <strong>${email}</strong> has an account that is not confirmed yet, a new confirmation link is on its way.</p>`,
      }),
    );
  });

  // Sign-in and out.
  const signInPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    opts: { email?: string; errors?: FieldErrors; status?: number; banner?: Fragment } = {},
  ) => {
    const csrf = await visits.formToken(request, reply);
    const view = ctx.view(request, csrf);
    const next = safeNext(queryOf(request, 'next') ?? formOf(request).one('next'), ctx.base);
    const done = queryOf(request, 'done');
    const banner =
      opts.banner ??
      (done === 'signed-out'
        ? notice('You are signed out.', 'success')
        : done === 'password-reset'
          ? notice('Your password was changed. Sign in with the new one.', 'success')
          : '');
    return ctx.send(
      reply,
      page(view, {
        title: 'Sign in',
        body: html`${banner}${errorSummary(opts.errors ?? {}, LABELS)}
${form(
  view,
  paths.signIn(),
  html`<input type="hidden" name="next" value="${next}">
${field({ name: 'email', label: LABELS.email, type: 'email', value: opts.email, required: true, autocomplete: 'username', error: opts.errors?.email, maxlength: 254 })}
${field({ name: 'password', label: LABELS.password, type: 'password', required: true, autocomplete: 'current-password', error: opts.errors?.password, maxlength: 1024 })}
<div class="actions"><button type="submit">Sign in</button> <a href="${href(view, paths.reset())}">Forgot your password?</a></div>`,
)}
<p>New here? <a href="${href(view, paths.signUp())}">Create an account</a>.</p>`,
      }),
      opts.status ?? 200,
    );
  };

  app.get(paths.signIn(), HIDE, async (request, reply) => {
    if (request.visit.user) throw new Redirect(safeNext(queryOf(request, 'next'), ctx.base));
    return signInPage(request, reply);
  });
  app.post(paths.signIn(), HIDE, async (request, reply) => {
    await limitSignIn(request);
    const f = formOf(request);
    const email = f.one('email');
    const password = f.one('password', { trim: false });
    if (emailProblem(email) || password.length === 0 || password.length > 1024) {
      return signInPage(request, reply, {
        email,
        status: 422,
        errors: { _form: 'Enter your email address and password.' },
      });
    }
    const result = await people.signIn(email, password);
    if (!result.ok && result.reason === 'unverified') {
      mail.verification(
        result.user.email,
        verifyLink(ctx, people.verificationToken(result.user)),
        VERIFICATION_TTL_MS / 3_600_000,
      );
      return signInPage(request, reply, {
        email,
        status: 403,
        banner: html`${notice(html`Confirm your address first: we sent a new confirmation link to <strong>${result.user.email}</strong>.`, 'warning')}${mailNote('link')}`,
      });
    }
    if (!result.ok) {
      request.log.info('sign-in refused');
      return signInPage(request, reply, {
        email,
        status: 401,
        errors: { _form: 'The email address or the password is not right.' },
      });
    }
    await visits.signIn(request, reply, result.user);
    request.log.info({ user: result.user.id }, 'signed in');
    throw new Redirect(safeNext(f.one('next'), ctx.base));
  });

  app.post(paths.signOut(), HIDE, async (request, reply) => {
    await visits.signOut(request, reply);
    throw new Redirect(`${ctx.base}${paths.signIn()}?done=signed-out`);
  });

  // Password reset.
  app.get(paths.reset(), HIDE, async (request, reply) => {
    const csrf = await visits.formToken(request, reply);
    const view = ctx.view(request, csrf);
    return ctx.send(
      reply,
      page(view, {
        title: 'Reset your password',
        body: html`<p>Enter the address of your account; we will mail you a link to choose a new password.</p>
${form(
  view,
  paths.reset(),
  html`${field({ name: 'email', label: LABELS.email, type: 'email', required: true, autocomplete: 'email', maxlength: 254 })}
<div class="actions"><button type="submit">Send the link</button></div>`,
)}`,
      }),
    );
  });
  app.post(paths.reset(), HIDE, async (request, reply) => {
    await limitReset(request);
    const email = formOf(request).one('email');
    const started = emailProblem(email) ? undefined : await people.startReset(email);
    if (started) {
      mail.reset(
        started.user.email,
        `${ctx.link(paths.resetNew())}?token=${encodeURIComponent(started.token)}`,
        RESET_TTL_MS / 60_000,
      );
      request.log.info({ user: started.user.id }, 'password reset requested');
    }
    const view = ctx.view(request);
    return ctx.send(
      reply,
      page(view, {
        title: 'Check your inbox',
        body: html`${mailNote('reset link')}<p>If <strong>${email}</strong> has an account, a link to choose a new password is on its way. It works once, for ${RESET_TTL_MS / 60_000} minutes.</p>`,
      }),
    );
  });

  const resetForm = async (
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    errors: FieldErrors = {},
  ) => {
    const csrf = await visits.formToken(request, reply);
    const view = ctx.view(request, csrf);
    return ctx.send(
      reply,
      page(view, {
        title: 'Choose a new password',
        body: html`${errorSummary(errors, { password: 'New password', confirm: LABELS.confirm })}
${form(
  view,
  paths.resetNew(),
  html`<input type="hidden" name="token" value="${token}">
${field({ name: 'password', label: 'New password', type: 'password', required: true, autocomplete: 'new-password', hint: 'At least 10 characters.', error: errors.password, minlength: 10, maxlength: 1024 })}
${field({ name: 'confirm', label: LABELS.confirm, type: 'password', required: true, autocomplete: 'new-password', error: errors.confirm, maxlength: 1024 })}
<div class="actions"><button type="submit">Change the password</button></div>`,
)}`,
      }),
      Object.keys(errors).length > 0 ? 422 : 200,
    );
  };
  const linkUsed = () =>
    new PageError(
      400,
      'This link does not work',
      'The reset link is invalid, already used or expired. Ask for a new one on the sign-in page.',
    );

  // Opening the link changes nothing (mail scanners open links); the form uses it up.
  app.get(paths.resetNew(), HIDE, async (request, reply) => {
    const token = queryOf(request, 'token') ?? '';
    if (token.length > 200 || !(await people.resetUsable(token))) throw linkUsed();
    return resetForm(request, reply, token);
  });
  app.post(paths.resetNew(), HIDE, async (request, reply) => {
    const f = formOf(request);
    const token = f.one('token');
    const password = f.one('password', { trim: false });
    const errors: FieldErrors = {};
    const bad = passwordProblem(password);
    if (bad) errors.password = bad;
    else if (password !== f.one('confirm', { trim: false }))
      errors.confirm = 'does not match the new password';
    if (token.length > 200) throw linkUsed();
    if (Object.keys(errors).length > 0) return resetForm(request, reply, token, errors);
    const user = await people.completeReset(token, password);
    if (!user) throw linkUsed();
    // Every session of the account ends, the visitor's too: sign in again with the new password.
    await ctx.sessions.endAllOf(user.id);
    await visits.signOut(request, reply);
    request.log.info({ user: user.id }, 'password reset');
    throw new Redirect(`${ctx.base}${paths.signIn()}?done=password-reset`);
  });

  // The account page: change password.
  const accountPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    errors: FieldErrors = {},
    banner: Fragment = '',
  ) => {
    const user = visits.requireUser(request);
    const view = ctx.view(request);
    return ctx.send(
      reply,
      page(view, {
        title: 'Your account',
        crumbs: [{ label: 'Overview', path: paths.home() }, { label: 'Account' }],
        body: html`${banner}
<dl class="facts"><dt>Email address</dt><dd>${user.email}</dd>
<dt>Confirmed</dt><dd>${when(user.email_verified_at)}</dd>
<dt>Password changed</dt><dd>${when(user.password_changed_at)}</dd></dl>
<h2>Change your password</h2>
<p>Your other sessions are signed out when it changes.</p>
${errorSummary(errors, { current: LABELS.current, password: 'New password', confirm: LABELS.confirm })}
${form(
  view,
  `${paths.account()}/password`,
  html`${field({ name: 'current', label: LABELS.current, type: 'password', required: true, autocomplete: 'current-password', error: errors.current, maxlength: 1024 })}
${field({ name: 'password', label: 'New password', type: 'password', required: true, autocomplete: 'new-password', hint: 'At least 10 characters.', error: errors.password, minlength: 10, maxlength: 1024 })}
${field({ name: 'confirm', label: LABELS.confirm, type: 'password', required: true, autocomplete: 'new-password', error: errors.confirm, maxlength: 1024 })}
<div class="actions"><button type="submit">Change the password</button></div>`,
)}`,
      }),
      Object.keys(errors).length > 0 ? 422 : 200,
    );
  };
  app.get(paths.account(), HIDE, async (request, reply) => accountPage(request, reply));
  app.post(`${paths.account()}/password`, HIDE, async (request, reply) => {
    const user = visits.requireUser(request);
    await limitSignIn(request);
    const f = formOf(request);
    const current = f.one('current', { trim: false });
    const password = f.one('password', { trim: false });
    const errors: FieldErrors = {};
    const bad = passwordProblem(password, user.email);
    if (bad) errors.password = bad;
    else if (password !== f.one('confirm', { trim: false }))
      errors.confirm = 'does not match the new password';
    if (Object.keys(errors).length === 0 && !(await people.changePassword(user.id, current, password)))
      errors.current = 'is not right';
    if (Object.keys(errors).length > 0) return accountPage(request, reply, errors);
    const ended = await ctx.sessions.endAllOf(user.id, request.visit.session?.id);
    request.log.info({ user: user.id, sessionsEnded: ended }, 'password changed');
    return accountPage(
      request,
      reply,
      {},
      notice('Your password was changed. Your other sessions are signed out.', 'success'),
    );
  });
}

function verifyLink(ctx: DashboardContext, token: string): string {
  return `${ctx.link(paths.verify())}?token=${encodeURIComponent(token)}`;
}

function resendForm(view: Parameters<typeof form>[0]) {
  return form(
    view,
    paths.resendVerification(),
    html`${field({ name: 'email', label: LABELS.email, type: 'email', required: true, autocomplete: 'email', maxlength: 254 })}
<div class="actions"><button type="submit">Send a new link</button></div>`,
  );
}
