import type { ToolExecutionContext } from '../registry/executor.ts';
import type { Manifest } from '../registry/manifest/manifest.ts';
import type { ConnectionAccess } from './connection-access.ts';
import type { UserTokenServices } from './user-tokens.ts';

/**
 * A tenant's connections, their code (grants, crypto, OAuth) loaded on the first call that needs
 * a user's token: tenants without connections, and calls of other tools, never load it.
 */
export function lazyUserTokens(manifest: Manifest, services: UserTokenServices): ConnectionAccess {
  let loaded: Promise<ConnectionAccess> | undefined;
  return {
    async accessToken(connection: string, context: ToolExecutionContext) {
      loaded ??= import('./user-tokens.ts').then(({ UserTokens }) => new UserTokens(manifest, services));
      return (await loaded).accessToken(connection, context);
    },
  };
}
