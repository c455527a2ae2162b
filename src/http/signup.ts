/**
 * The registration page of invitation emails, outside the /api/v1 route table:
 * - GET  /accounts/do_confirm/<key>  a small self-contained HTML form (full name, password)
 * - POST /accounts/do_confirm/<key>  form-encoded `full_name`, `password`: creates the account
 * Unknown keys are 404, expired or revoked ones 410, used ones say the account
 * exists; form errors re-show the form (400). Every interpolated value is escaped.
 *
 * Reusable invitation links lead to:
 * - GET  /join/<key>/  a form asking for an email address
 * - POST /join/<key>/  form-encoded `email`: sends a confirmation email whose
 *   /accounts/do_confirm/ link is the registration page above
 *
 * Sign-up without an invitation (while the organization's invite_required is
 * off), at Zulip's addresses:
 * - GET  /accounts/home/ and /register/  a form asking for an email address
 * - POST the same, form-encoded `email`: as POST /join/<key>/
 */
export const JOIN_PATH_PREFIX = '/join/';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import { acceptInvitation, checkConfirmationKey, type SignupResult } from '../actions/signup.ts';
import { checkMultiuseKey, openSignupState, startMultiuseSignup, startOpenSignup } from '../actions/invites.ts';
import { confirmEmailChange } from '../actions/email-change.ts';
import { checkPasswordResetLink, PASSWORD_RESET_PATH, requestPasswordReset, resetPassword } from '../actions/password-reset.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../lib/passwords.ts';

export const SIGNUP_PATH_PREFIX = '/accounts/do_confirm/';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

const STYLE =
  'body{font-family:system-ui,sans-serif;background:#f5f6f8;color:#222;margin:0}' +
  'main{max-width:420px;margin:48px auto;background:#fff;padding:24px 32px;border-radius:8px;box-shadow:0 1px 4px rgba(0,0,0,.15)}' +
  'label{display:block;margin:14px 0 4px;font-weight:600}input{width:100%;box-sizing:border-box;padding:8px;font-size:15px}' +
  'input[readonly]{background:#eee}button{margin-top:18px;padding:9px 18px;font-size:15px;background:#3b6ea5;color:#fff;border:0;border-radius:4px}' +
  '.error{background:#fdecea;color:#8a1c12;padding:8px 12px;border-radius:4px}code{background:#eee;padding:1px 4px}';

function page(title: string, body: string): string {
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`
  );
}

function send(reply: FastifyReply, status: number, html: string): void {
  reply
    .code(status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    // The key is in the URL: never leak it through Referer; no framing, no scripts.
    .header('Referrer-Policy', 'no-referrer')
    .header('X-Frame-Options', 'DENY')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
    .send(html);
}

function form(key: string, email: string, realmName: string, fullName: string, error: string | null): string {
  return page(
    `Join ${realmName}`,
    `<h1>Join ${escapeHtml(realmName)}</h1>` +
      (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '') +
      `<form method="post" action="${escapeHtml(SIGNUP_PATH_PREFIX + encodeURIComponent(key))}">` +
      `<label for="email">Email</label><input id="email" type="email" value="${escapeHtml(email)}" readonly>` +
      `<label for="full_name">Full name</label><input id="full_name" name="full_name" maxlength="100" required autocomplete="name" value="${escapeHtml(fullName)}">` +
      `<label for="password">Password</label><input id="password" name="password" type="password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}" autocomplete="new-password">` +
      '<button type="submit">Create account</button></form>',
  );
}

function render(svc: Services, reply: FastifyReply, key: string, result: SignupResult, fullName = ''): void {
  switch (result.kind) {
    case 'invalid':
      return send(reply, 404, page('Invalid link', '<h1>This confirmation link is invalid</h1><p>Check that you copied the whole link from your invitation email.</p>'));
    case 'expired':
      return send(
        reply,
        410,
        page('Link expired', '<h1>This confirmation link has expired</h1><p>The link has expired or been deactivated. Ask for a new invitation.</p>'),
      );
    case 'used':
      return send(
        reply,
        200,
        page(
          'Account exists',
          `<h1>The account already exists</h1><p>An account for <strong>${escapeHtml(result.email)}</strong> has already been created. ` +
            `Log in at <code>${escapeHtml(svc.config.externalUrl)}</code>.</p>`,
        ),
      );
    case 'valid':
      return send(reply, 200, form(key, result.invitation.email, result.realmName, fullName, null));
    case 'form_error':
      return send(reply, 400, form(key, result.invitation.email, result.realmName, fullName, result.error));
    case 'created':
      return send(
        reply,
        200,
        page(
          'Account created',
          `<h1>Welcome to ${escapeHtml(result.realmName)}!</h1><p>Your account has been created. <a href="/login/">Log in to the web app</a>.</p>` +
            `<p>To log in with a Zulip app, use the server URL <code>${escapeHtml(svc.config.externalUrl)}</code> ` +
            `and the email <code>${escapeHtml(result.user.delivery_email)}</code> with your password.</p>`,
        ),
      );
  }
}

export function registerSignupRoutes(app: FastifyInstance, svc: Services): void {
  const path = `${SIGNUP_PATH_PREFIX}:key`;
  app.get(path, async (req: FastifyRequest, reply) => {
    const { key } = req.params as { key: string };
    render(svc, reply, key, await checkConfirmationKey(svc, key));
  });
  app.post(path, async (req: FastifyRequest, reply) => {
    const { key } = req.params as { key: string };
    const fields = req.formFields ?? new Map<string, string>();
    const fullName = fields.get('full_name') ?? '';
    try {
      render(svc, reply, key, await acceptInvitation(svc, key, { fullName, password: fields.get('password') ?? '' }), fullName);
    } catch (err) {
      req.log.error({ err }, 'signup failed');
      const state = await checkConfirmationKey(svc, key).catch(() => null);
      if (state?.kind === 'valid') {
        render(svc, reply, key, { kind: 'form_error', invitation: state.invitation, realmName: state.realmName, error: 'Something went wrong. Please try again.' }, fullName);
      } else {
        render(svc, reply, key, state ?? { kind: 'invalid' });
      }
    }
  });
}

function joinForm(key: string, realmName: string, email: string, error: string | null): string {
  return emailForm(`${JOIN_PATH_PREFIX}${encodeURIComponent(key)}/`, realmName, email, error);
}

function emailForm(action: string, realmName: string, email: string, error: string | null, note = ''): string {
  return page(
    `Join ${realmName}`,
    `<h1>Join ${escapeHtml(realmName)}</h1>` +
      (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '') +
      (note ? `<p>${escapeHtml(note)}</p>` : '') +
      `<form method="post" action="${escapeHtml(action)}">` +
      `<label for="email">Email</label><input id="email" name="email" type="email" required autocomplete="email" value="${escapeHtml(email)}">` +
      '<button type="submit">Sign up</button></form>',
  );
}

export function registerJoinRoutes(app: FastifyInstance, svc: Services): void {
  const invalid = (reply: FastifyReply) =>
    send(reply, 404, page('Invalid link', '<h1>This invitation link is invalid</h1><p>Check that you copied the whole link.</p>'));
  const expired = (reply: FastifyReply) =>
    send(reply, 410, page('Link expired', '<h1>This invitation link has expired</h1><p>The link has expired or been revoked. Ask for a new one.</p>'));
  // With or without the trailing slash (the app ignores it).
  {
    const path = `${JOIN_PATH_PREFIX}:key/`;
    app.get(path, async (req: FastifyRequest, reply) => {
      const { key } = req.params as { key: string };
      const state = await checkMultiuseKey(svc, key);
      if (state.kind === 'invalid') return invalid(reply);
      if (state.kind === 'expired') return expired(reply);
      send(reply, 200, joinForm(key, state.realmName, '', null));
    });
    app.post(path, async (req: FastifyRequest, reply) => {
      const { key } = req.params as { key: string };
      const email = (req.formFields ?? new Map<string, string>()).get('email') ?? '';
      const r = await startMultiuseSignup(svc, key, email);
      if (r.kind === 'invalid') return invalid(reply);
      if (r.kind === 'expired') return expired(reply);
      if (r.kind === 'form_error') return send(reply, 400, joinForm(key, r.realmName, email, r.error));
      if (r.kind === 'valid') return send(reply, 200, joinForm(key, r.realmName, email, null));
      checkYourEmail(reply, r.email);
    });
  }
}

function checkYourEmail(reply: FastifyReply, email: string): void {
  send(reply, 200, page('Check your email', `<h1>Check your email</h1><p>We sent a link to <strong>${escapeHtml(email)}</strong> to finish creating your account.</p>`));
}

export function registerOpenSignupRoutes(app: FastifyInstance, svc: Services): void {
  for (const path of ['/accounts/home/', '/register/']) {
    app.get(path, async (_req: FastifyRequest, reply) => {
      const { realmName, inviteRequired } = await openSignupState(svc);
      send(reply, 200, emailForm(path, realmName, '', null, inviteRequired ? 'Joining this organization requires an invitation.' : ''));
    });
    app.post(path, async (req: FastifyRequest, reply) => {
      const email = (req.formFields ?? new Map<string, string>()).get('email') ?? '';
      const r = await startOpenSignup(svc, email);
      if (r.kind === 'form_error') return send(reply, 400, emailForm(path, r.realmName, email, r.error));
      checkYourEmail(reply, r.email);
    });
  }
}

/** GET /accounts/confirm_new_email/<key>/: the link of an email change (PATCH /settings email). */
export function registerEmailChangeRoutes(app: FastifyInstance, svc: Services): void {
  app.get('/accounts/confirm_new_email/:key/', async (req: FastifyRequest, reply) => {
    const { key } = req.params as { key: string };
    const r = await confirmEmailChange(svc, key);
    if (r.kind === 'invalid') return send(reply, 404, page('Invalid link', '<h1>This confirmation link is invalid</h1>'));
    if (r.kind === 'expired') return send(reply, 410, page('Link expired', '<h1>This confirmation link has expired or was already used</h1>'));
    if (r.kind === 'taken' || r.kind === 'refused') return send(reply, 400, page('Address in use', `<h1>The address could not be changed</h1><p>${escapeHtml(r.error)}</p>`));
    send(
      reply,
      200,
      page('Email address changed', `<h1>Email address changed</h1><p>The email address for your account was changed from <strong>${escapeHtml(r.oldEmail)}</strong> to <strong>${escapeHtml(r.newEmail)}</strong>.</p>`),
    );
  });
}

function resetRequestForm(email: string, error: string | null): string {
  return page(
    'Reset your password',
    '<h1>Reset your password</h1>' +
      (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '') +
      '<p>Enter your email address, and we will send you a link to choose a new password.</p>' +
      `<form method="post" action="${PASSWORD_RESET_PATH}">` +
      `<label for="email">Email</label><input id="email" name="email" type="email" required autocomplete="email" value="${escapeHtml(email)}">` +
      '<button type="submit">Send the link</button></form><p><a href="/login/">Back to the login page</a></p>',
  );
}

function newPasswordForm(key: string, email: string, error: string | null): string {
  return page(
    'Choose a new password',
    '<h1>Choose a new password</h1>' +
      (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '') +
      `<form method="post" action="${escapeHtml(PASSWORD_RESET_PATH + encodeURIComponent(key))}/">` +
      `<label for="email">Email</label><input id="email" type="email" value="${escapeHtml(email)}" readonly autocomplete="username">` +
      `<label for="new_password1">New password</label><input id="new_password1" name="new_password1" type="password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}" autocomplete="new-password">` +
      `<label for="new_password2">New password again</label><input id="new_password2" name="new_password2" type="password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}" autocomplete="new-password">` +
      '<button type="submit">Set the password</button></form>',
  );
}

/**
 * The password reset pages, at Zulip's address for the form:
 * - GET  /accounts/password/reset/  a form asking for an email address
 * - POST the same, form-encoded `email`: mails the link (or why there is none) and says to check the email;
 *   an invalid address re-shows the form (400); over a limit (the email address's or the client's), 429 saying when to try again
 * - GET  /accounts/password/reset/<key>/  the new password, twice (unknown keys 404; used or expired ones 410)
 * - POST the same, form-encoded `new_password1`, `new_password2`: sets it, or re-shows the form with why not (400)
 */
export function registerPasswordResetRoutes(app: FastifyInstance, svc: Services): void {
  app.get(PASSWORD_RESET_PATH, async (_req: FastifyRequest, reply) => send(reply, 200, resetRequestForm('', null)));
  app.post(PASSWORD_RESET_PATH, async (req: FastifyRequest, reply) => {
    const email = (req.formFields ?? new Map<string, string>()).get('email') ?? '';
    const r = await requestPasswordReset(svc, email, req.ip);
    if (r.kind === 'form_error') return send(reply, 400, resetRequestForm(email, r.error));
    if (r.kind === 'rate_limited') {
      const minutes = Math.max(1, Math.ceil(r.seconds / 60));
      const why = r.by === 'email' ? 'Too many links were asked for this address.' : 'Too many emails were asked for from your network.';
      reply.header('Retry-After', String(r.seconds));
      return send(reply, 429, page('Too many requests', `<h1>Too many password reset requests</h1><p>${why} Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.</p>`));
    }
    send(
      reply,
      200,
      page('Check your email', `<h1>Check your email</h1><p>If <strong>${escapeHtml(r.email)}</strong> has an account here, we sent it a link to choose a new password. Check your email in a few minutes.</p>`),
    );
  });
  const invalid = (reply: FastifyReply) => send(reply, 404, page('Invalid link', '<h1>This password reset link is invalid</h1><p>Check that you copied the whole link from the email.</p>'));
  const expired = (reply: FastifyReply) =>
    send(reply, 410, page('Link expired', `<h1>This password reset link has expired or was already used</h1><p><a href="${PASSWORD_RESET_PATH}">Ask for a new link</a>.</p>`));
  const path = `${PASSWORD_RESET_PATH}:key/`;
  app.get(path, async (req: FastifyRequest, reply) => {
    const { key } = req.params as { key: string };
    const r = await checkPasswordResetLink(svc, key);
    if (r.kind === 'invalid') return invalid(reply);
    if (r.kind === 'expired') return expired(reply);
    send(reply, 200, newPasswordForm(key, r.email, null));
  });
  app.post(path, async (req: FastifyRequest, reply) => {
    const { key } = req.params as { key: string };
    const fields = req.formFields ?? new Map<string, string>();
    const r = await resetPassword(svc, key, fields.get('new_password1') ?? '', fields.get('new_password2') ?? '');
    if (r.kind === 'invalid') return invalid(reply);
    if (r.kind === 'expired') return expired(reply);
    if (r.kind === 'form_error') return send(reply, 400, newPasswordForm(key, r.email, r.error));
    if (r.kind === 'valid') return send(reply, 200, newPasswordForm(key, r.email, null));
    send(reply, 200, page('Password changed', `<h1>Your password has been changed</h1><p>Log in with <strong>${escapeHtml(r.email)}</strong> and your new password. <a href="/login/">Log in</a></p>`));
  });
}
