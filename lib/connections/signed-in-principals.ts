import type { Store } from '../stores/store.ts';

const signedInKey = (tenant: string, principal: string) => `conn-signed-in/${encodeURIComponent(tenant)}/${encodeURIComponent(principal)}`;

/**
 * Notes that a principal of the tenant consented to a connection after signing in with a token
 * (kept after its grants are revoked: the name stays a signed-in user's). Minting an API key of
 * that name is then refused (key-lifecycle.ts): such a key would be that user for call records,
 * streams, tasks and their connection grants list.
 */
export async function noteSignedIn(store: Store, tenant: string, principal: string): Promise<void> {
  if (await store.get(signedInKey(tenant, principal))) return;
  await store.put(signedInKey(tenant, principal), { state: 'signed-in', expires_at: 0, data: {} });
}

/** Whether a signed-in user of that name has held a connection grant in the tenant. */
export async function isSignedInPrincipal(store: Store, tenant: string, principal: string): Promise<boolean> {
  return Boolean(await store.get(signedInKey(tenant, principal)));
}
