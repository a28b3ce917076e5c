import type { Context } from 'hono';

/**
 * Where sign-in may send a browser back to: a confirm page (the link an MCP client opens for its
 * user lands there before the user signed in). Only those exact paths, so `next` can never lead
 * off the console (no open redirect).
 */
const RETURN_PATH = /^\/console\/confirm(?:\/apr_[0-9a-f]{24})?$/;

export const isReturnPath = (value: unknown): value is string => typeof value === 'string' && RETURN_PATH.test(value);

/** The sign-in page, remembering this request's page when it is one to come back to. */
export function signInPathFor(c: Context): string {
  const path = new URL(c.req.url).pathname;
  return c.req.method === 'GET' && isReturnPath(path) ? `/console/sign-in?next=${encodeURIComponent(path)}` : '/console/sign-in';
}
