import type { Context } from 'hono';
import type { ConnectionCaller } from '../connections/connection-access.ts';
import { proofOf, type GrantProof } from '../connections/grant-proof.ts';
import type { GatewayEnv } from './env.ts';

/**
 * What a call's tools acting as the user need from the request: the origin it reached (connect
 * links), the caller's sign-in token (token exchange), how it proved who it is (grants).
 * `origin` (TOOLGATE_PUBLIC_URL, else the request URL's) is worked out when a tool first asks
 * for it: parsing the URL for every call would cost each call for the few that make a link.
 */
export function connectionCaller(c: Context<GatewayEnv>, origin: () => string = () => new URL(c.req.url).origin): ConnectionCaller {
  return new RequestConnectionCaller(origin, c.get('signInToken'), proofOf(c.get('principal')));
}

class RequestConnectionCaller implements ConnectionCaller {
  readonly #find: () => string;
  #origin: string | undefined;
  readonly subject_token?: string;
  readonly proof?: GrantProof;

  constructor(origin: () => string, token: string | undefined, proof: GrantProof | undefined) {
    this.#find = origin;
    if (token) this.subject_token = token;
    if (proof) this.proof = proof;
  }

  get origin(): string {
    return (this.#origin ??= this.#find());
  }
}
