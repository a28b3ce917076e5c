import type { Principal } from '../governance/api-keys.ts';

/** What the console's middleware puts on the request context for its pages. */
export type ConsoleVariables = {
  /** The signed-in principal, re-authenticated from the session cookie on this request. */
  principal: Principal;
  /** This session's form token (see csrfToken): every POST form carries it. */
  csrf: string;
  /** Set by hono/secure-headers' NONCE: the inline stylesheet and script carry it. */
  secureHeadersNonce?: string;
};

export type ConsoleEnv = { Variables: ConsoleVariables };
