import type { Principal } from '../governance/api-keys.ts';
import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';
import type { Span } from '../telemetry/span.ts';

/** What the auth middleware puts on the request context for the routes. */
export type GatewayVariables = {
  principal: Principal;
  runtime: TenantRuntime;
  /** The request's HTTP server span, when tracing is on (lib/telemetry/http-middleware.ts). */
  span?: Span;
  /** The caller's bearer token when it signed in with one from the tenant's identity provider (never an API key): a token_exchange connection's subject token. */
  signInToken?: string;
};

export type GatewayEnv = { Variables: GatewayVariables };
