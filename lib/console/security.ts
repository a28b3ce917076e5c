import type { Context, MiddlewareHandler } from 'hono';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import { NONCE, secureHeaders } from 'hono/secure-headers';
import { originProblem, type OriginPolicy } from '../http/origin-policy.ts';
import type { ConsoleEnv } from './env.ts';
import { messagePage } from './layout.ts';
import { sameToken } from './session.ts';

/**
 * Headers on every console response: a CSP that allows only this response's own stylesheet and
 * script (by nonce; no other script, no external anything), forms posting only here, no framing;
 * and no caching (pages carry approvals, audit data, keys shown once).
 */
export function consoleHeaders(): MiddlewareHandler<ConsoleEnv> {
  const headers = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      styleSrc: [NONCE],
      scriptSrc: [NONCE],
      imgSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
    xFrameOptions: 'DENY',
    referrerPolicy: 'no-referrer',
    crossOriginResourcePolicy: 'same-origin',
    crossOriginOpenerPolicy: 'same-origin',
  });
  return async (c, next) => {
    await headers(c, async () => {
      await next();
      c.header('Cache-Control', 'no-store');
    });
  };
}

/** The Host check of the API (DNS rebinding: a page re-pointed at this gateway still says its own name); Origin is csrf()'s job here. */
export function consoleHostGuard(policy: () => OriginPolicy): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    const problem = originProblem(policy(), { host: c.req.header('host') });
    if (problem) return messagePage(c, 403, 'Refused', problem);
    await next();
  };
}

const FORM_TYPES = /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i;
const sameOrigin = csrf();

/**
 * Forms only, and only from this console's own pages: Hono's csrf() (Origin or Sec-Fetch-Site
 * must say same-origin), then, for a signed-in session, the session's form token.
 */
export function formGuard(options: { token: boolean }): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    if (!FORM_TYPES.test(c.req.header('content-type') ?? '')) return messagePage(c, 415, 'Refused', 'the console accepts only its own forms (application/x-www-form-urlencoded); use the HTTP API (/v1) for programs');
    try {
      await sameOrigin(c, async () => {});
    } catch (error) {
      if (error instanceof HTTPException) return refusedForm(c, 'this form was sent from another site (its Origin is not this console); open the console and submit the form from there');
      throw error;
    }
    if (options.token) {
      const sent = (await c.req.parseBody())._csrf;
      if (typeof sent !== 'string' || !sameToken(sent, c.get('csrf'))) return refusedForm(c, 'the form token is missing or does not belong to this session (the form may be from an earlier session); reload the page and submit it again');
    }
    await next();
  };
}

function refusedForm(c: Context<ConsoleEnv>, message: string) {
  return messagePage(c, 403, 'Form refused', message);
}
