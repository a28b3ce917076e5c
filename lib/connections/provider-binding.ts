import type { Manifest } from '../registry/manifest/manifest.ts';

/**
 * What a grant is bound to besides its owner: the provider (every endpoint the manifest writes)
 * and client it was issued by and for, and where the manifest sends its tokens (the origins of
 * every executor whose `auth` names the connection). A manifest version that changes any of them
 * (another issuer, token or revocation endpoint, client, or a tool sending the token to a new origin) no longer opens the users' grants, so they
 * are asked to connect again rather than having their tokens sent to the new place: a tenant admin
 * cannot add a tool that carries the tokens users already gave to a server of the admin's own.
 */
export function providerBinding(manifest: Manifest, connection: string): string {
  const settings = manifest.connections![connection]!;
  // The revocation endpoint too: revoking sends it the refresh token.
  const provider = [settings.issuer ?? '', settings.authorization_endpoint ?? '', settings.token_endpoint ?? '', settings.revocation_endpoint ?? '', settings.client_id, settings.resource ?? '', settings.audience ?? ''];
  return JSON.stringify([...provider, ...tokenDestinations(manifest, connection)]);
}

/** The origins the manifest's executors send `connection`'s tokens to, sorted, each once. */
function tokenDestinations(manifest: Manifest, connection: string): string[] {
  const origins = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    const node = value as { url?: unknown; auth?: { connection?: unknown } };
    if (node.auth?.connection === connection && typeof node.url === 'string' && URL.canParse(node.url)) origins.add(new URL(node.url).origin);
    Object.values(node).forEach(visit);
  };
  visit(manifest);
  return [...origins].sort();
}
