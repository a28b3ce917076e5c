import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { sha256Hex } from '../crypto/sha256.ts';
import type { Authenticator } from '../http/authenticator.ts';
import { isTenantId } from '../http/routes/protected-resource.ts';
import type { ConsoleEnv } from './env.ts';
import { signInPathFor } from './return-path.ts';

/**
 * The console's session is the credential itself (an API key or a token), in a cookie the page's
 * scripts cannot read (HttpOnly), sent only over HTTPS (Secure; browsers also keep it on
 * http://localhost and 127.0.0.1), never on a cross-site request (SameSite=Strict) and only to
 * /console. Every request signs in again through the app's Authenticator, so revoking a key or a
 * token's expiry ends the session at once. The `__Secure-` prefix makes the browser refuse a
 * cookie of this name set without Secure (by a page on plain HTTP).
 */
export const SESSION_COOKIE = 'toolgate_console';
export const CONSOLE_PATH = '/console';
const SESSION_SECONDS = 8 * 60 * 60;
/** Longer than any API key or ID token we accept; bounds what a sign-in form makes us hash. */
export const MAX_CREDENTIAL_CHARS = 8192;

/** The tenant a token signs in to (a token, unlike a key, does not name it); kept beside the credential, with the same flags. */
export const TENANT_COOKIE = 'toolgate_console_tenant';

/** What the cookies hold: the credential and, for a token, the tenant it was signed in to. */
export interface SessionCredential {
  credential: string;
  tenant?: string;
}

const COOKIE_FLAGS = { prefix: 'secure', httpOnly: true, sameSite: 'Strict', path: CONSOLE_PATH } as const;

export function startSession(c: Context, session: SessionCredential): void {
  setCookie(c, SESSION_COOKIE, session.credential, { ...COOKIE_FLAGS, maxAge: SESSION_SECONDS });
  if (session.tenant) setCookie(c, TENANT_COOKIE, session.tenant, { ...COOKIE_FLAGS, maxAge: SESSION_SECONDS });
  else if (getCookie(c, TENANT_COOKIE, 'secure') !== undefined) deleteCookie(c, TENANT_COOKIE, COOKIE_FLAGS);
}

export function endSession(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, COOKIE_FLAGS);
  if (getCookie(c, TENANT_COOKIE, 'secure') !== undefined) deleteCookie(c, TENANT_COOKIE, COOKIE_FLAGS);
}

export function sessionCredential(c: Context): SessionCredential | undefined {
  const credential = getCookie(c, SESSION_COOKIE, 'secure');
  if (!credential || credential.length > MAX_CREDENTIAL_CHARS) return undefined;
  const tenant = getCookie(c, TENANT_COOKIE, 'secure');
  return tenant && isTenantId(tenant) ? { credential, tenant } : { credential };
}

/**
 * The form token of a session: SHA-256 of a fixed label and the credential. A cross-site page
 * cannot read it (it never learns the credential, and the pages that carry the token are not
 * readable cross-origin), while every page of the session can put it in its forms.
 */
export function csrfToken(session: SessionCredential): Promise<string> {
  return sha256Hex(`toolgate console form token v1\n${session.tenant ?? ''}\n${session.credential}`);
}

/** Whether two strings are equal, in time that does not depend on where they first differ. */
export function sameToken(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * Pages behind sign-in: the cookie's credential → principal through the app's Authenticator.
 * A credential that no longer signs in (revoked, expired, unknown) ends the session and sends
 * the browser to the sign-in page; a store outage is a 503 page that keeps the session.
 */
export function requireSession(authenticator: Authenticator, unavailable: (c: Context<ConsoleEnv>, message: string) => Response | Promise<Response>): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    const session = sessionCredential(c);
    if (!session) return c.redirect(signInPathFor(c), 303);
    const outcome = await authenticator.authenticate(session.credential, session.tenant);
    if (!outcome.ok) {
      if (outcome.status === 503) return unavailable(c, outcome.message);
      endSession(c);
      return c.redirect(`${CONSOLE_PATH}/sign-in?ended=1`, 303);
    }
    c.set('principal', outcome.principal);
    c.set('csrf', await csrfToken(session));
    await next();
  };
}
