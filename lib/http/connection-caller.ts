import type { Context } from 'hono';
import type { ConnectionCaller } from '../connections/connection-access.ts';
import { proofOf } from '../connections/grant-proof.ts';
import type { GatewayEnv } from './env.ts';

/** What a call's tools acting as the user need from the request: the origin it reached (connect links), the caller's sign-in token (token exchange), how it proved who it is (grants). */
export function connectionCaller(c: Context<GatewayEnv>, origin = new URL(c.req.url).origin): ConnectionCaller {
  const token = c.get('signInToken');
  const proof = proofOf(c.get('principal'));
  return { origin, ...(token ? { subject_token: token } : {}), ...(proof ? { proof } : {}) };
}
