import type { ToolExecutionContext } from '../registry/executor.ts';
import type { GrantProof } from './grant-proof.ts';

/** What a call knows about its caller that a connection needs: where the caller reached the gateway, and its own sign-in token. */
export interface ConnectionCaller {
  /** The gateway's origin as the caller reached it (TOOLGATE_PUBLIC_URL when pinned): connect links point there. */
  origin?: string;
  /** The caller's bearer token from the tenant's identity provider, for a token_exchange connection (RFC 8693 subject_token). */
  subject_token?: string;
  /** How the caller proved who it is (a token's issuer and subject, or a key): a stored grant is used only with the proof it was made with. */
  proof?: GrantProof;
}

/** Which connection and grant a call's token came from: audited with the call's result (never the token). */
export interface ConnectionUse {
  connection: string;
  /** The stored grant's id; absent for a token exchange (nothing is stored). */
  grant_id?: string;
}

/**
 * The calling principal's token for one of the manifest's connections (lib/connections/user-tokens.ts).
 * Throws a ToolError: `authorization_required` (with `details.authorization_url`) when the user
 * has not connected yet or the grant is gone; `unavailable` when the gateway cannot hold grants.
 */
export interface ConnectionAccess {
  accessToken(connection: string, context: ToolExecutionContext): Promise<string>;
}
