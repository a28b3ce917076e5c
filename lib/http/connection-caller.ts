import type { Context } from 'hono';
import type { ConnectionCaller } from '../connections/connection-access.ts';
import type { GatewayEnv } from './env.ts';

/**
 * What a call's tools acting as the user need from the request: the origin it reached (connect
 * links), the caller's sign-in token (token exchange). `origin` (TOOLGATE_PUBLIC_URL, else the
 * request URL's) is worked out when a tool first asks for it: parsing the URL for every call
 * would cost each call for the few that make a connect link.
 */
export function connectionCaller(c: Context<GatewayEnv>, origin: () => string = () => new URL(c.req.url).origin): ConnectionCaller {
  return new RequestConnectionCaller(origin, c.get('signInToken'));
}

class RequestConnectionCaller implements ConnectionCaller {
  readonly #find: () => string;
  #origin: string | undefined;
  readonly subject_token?: string;

  constructor(origin: () => string, token: string | undefined) {
    this.#find = origin;
    if (token) this.subject_token = token;
  }

  get origin(): string {
    return (this.#origin ??= this.#find());
  }
}
