import type { Logger } from '../dispatch/events.ts';
import type { ApiKeyLifecycle } from '../governance/key-lifecycle.ts';
import type { TenantDirectory } from '../dispatch/tenant-directory.ts';
import type { Authenticator } from '../http/authenticator.ts';
import type { OriginPolicy } from '../http/origin-policy.ts';
import type { Store } from '../stores/store.ts';
import type { ConnectServices } from '../connections/connect-routes.ts';

/** What the console needs from the app: the same store, tenants and Authenticator as the API. */
export interface ConsoleOptions {
  store: Store;
  tenants: TenantDirectory;
  authenticator: Authenticator;
  /** The app's key lifecycle (it shares the authenticator's resolver, so a revocation here holds at once). */
  keyLifecycle: ApiKeyLifecycle;
  /** The runtime's environment (secrets of approved calls resolve here, as in the API). */
  env: Readonly<Record<string, string | undefined>>;
  /** The API's Host policy (the console checks Host; its forms check Origin with csrf()). */
  origins: () => OriginPolicy;
  log?: Logger;
  /** Users' connection grants (lib/connections), when the gateway holds them. */
  connections?: ConnectServices;
}
