import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isTenantId } from '../../http/routes/protected-resource.ts';
import type { ConsoleEnv } from '../env.ts';
import { messagePage, notice, renderPage } from '../layout.ts';
import type { ConsoleOptions } from '../options.ts';
import { isReturnPath } from '../return-path.ts';
import { endSession, MAX_CREDENTIAL_CHARS, startSession } from '../session.ts';

/**
 * Sign-in (an API key or a token typed into a form, checked by the app's Authenticator) and
 * sign-out. The sign-in form has no session yet, so no form token: csrf()'s origin check keeps
 * other sites from signing a browser in under their own key.
 */
export function signInPages(routes: Hono<ConsoleEnv>, options: ConsoleOptions) {
  routes.get('/sign-in', (c) => {
    const ended = c.req.query('ended') !== undefined;
    const next = c.req.query('next');
    return signInPage(c, ended ? notice('bad', 'Your session ended: its key or token no longer signs in (revoked, rotated out or expired). Sign in again.') : '', 200, isReturnPath(next) ? next : undefined);
  });

  routes.post('/sign-in', async (c) => {
    const form = await c.req.parseBody();
    const next = isReturnPath(form.next) ? form.next : undefined;
    const credential = typeof form.credential === 'string' ? form.credential.trim() : '';
    if (!credential) return signInPage(c, notice('bad', 'Enter an API key (tg_…) or a token from your identity provider.'), 400, next);
    if (credential.length > MAX_CREDENTIAL_CHARS) return signInPage(c, notice('bad', `That is longer than any key or token (${MAX_CREDENTIAL_CHARS} characters at most).`), 400, next);
    const tenant = typeof form.tenant === 'string' && form.tenant.trim() !== '' ? form.tenant.trim() : undefined;
    if (tenant !== undefined && !isTenantId(tenant)) return signInPage(c, notice('bad', 'A tenant id is 1-63 lower-case letters, digits, _ and -, starting with a letter or digit.'), 400, next);
    const outcome = await options.authenticator.authenticate(credential, tenant);
    if (!outcome.ok) {
      if (outcome.status === 503) return messagePage(c, 503, 'Unavailable', `${outcome.message}; try again shortly`);
      return signInPage(c, notice('bad', `Sign-in refused: ${outcome.message}.`), 401, next);
    }
    startSession(c, { credential, tenant });
    return c.redirect(next ?? '/console', 303);
  });
}

/** Registered behind the session (it needs the form token). */
export function signOutRoute(routes: Hono<ConsoleEnv>) {
  routes.post('/sign-out', (c) => {
    endSession(c);
    return c.redirect('/console/sign-in', 303);
  });
}

function signInPage(c: Context<ConsoleEnv>, message: ReturnType<typeof notice> | '', status: ContentfulStatusCode = 200, next?: string) {
  const body = html`${message}<form method="post" action="/console/sign-in" class="card">
${next ? html`<input type="hidden" name="next" value="${next}">` : ''}
<label>API key or token<input type="password" name="credential" required autocomplete="off" spellcheck="false" maxlength="${MAX_CREDENTIAL_CHARS}" autofocus></label>
<label>Tenant <span class="muted">(for a token from your identity provider; a key knows its tenant)</span><input type="text" name="tenant" autocomplete="off" spellcheck="false" maxlength="63"></label>
<div class="actions"><button class="approve" type="submit">Sign in</button></div>
</form>
<p class="muted">The key or token stays in a cookie only this console receives (HttpOnly, Secure, SameSite=Strict) for at most 8 hours; every page checks it again, so a revoked key or an expired token ends the session. The pages you see follow its scopes: <code>approvals:read</code> / <code>approvals:decide</code>, <code>audit:read</code>, <code>admin</code>.</p>`;
  return renderPage(c, { title: 'Sign in', body, status });
}
