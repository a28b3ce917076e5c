import type { Principal } from '../governance/api-keys.ts';
import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';

/** What the auth middleware puts on the request context for the routes. */
export type GatewayVariables = {
  principal: Principal;
  runtime: TenantRuntime;
};

export type GatewayEnv = { Variables: GatewayVariables };
