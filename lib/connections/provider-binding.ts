import type { ConnectionSettings } from '../registry/manifest/manifest.ts';

/**
 * What a grant is bound to besides its owner: the provider and client it was issued by and for.
 * A manifest version that changes any of them (another issuer, token endpoint, client) no longer
 * opens the users' grants, so they are asked to connect again rather than having their tokens
 * sent to the new place.
 */
export function providerBinding(settings: ConnectionSettings): string {
  return JSON.stringify([settings.issuer ?? '', settings.authorization_endpoint ?? '', settings.token_endpoint ?? '', settings.client_id, settings.resource ?? '', settings.audience ?? '']);
}
