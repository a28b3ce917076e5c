import { principalIdentity } from '../governance/principal-identity.ts';
import type { Store } from '../stores/store.ts';

const signedInKey = (tenant: string, principal: string) => `conn-signed-in/${encodeURIComponent(tenant)}/${encodeURIComponent(principal)}`;

/**
 * Notes that a principal of the tenant consented to a connection after signing in with a token
 * (kept after its grants are revoked: the name stays a signed-in user's). Minting an API key of
 * that name is then refused (key-lifecycle.ts): such a key would be that user for call records,
 * streams, tasks and their connection grants list. Noted under the name as four-eyes compares
 * names (principal-identity.ts), so "Alice" or a full-width "ａｌｉｃｅ" is refused for "alice"
 * too: for approvals those are one person.
 */
export async function noteSignedIn(store: Store, tenant: string, principal: string): Promise<void> {
  const key = signedInKey(tenant, principalIdentity(principal));
  if (await store.get(key)) return;
  await store.put(key, { state: 'signed-in', expires_at: 0, data: {} });
}

/** Whether a signed-in user of that name (as four-eyes compares names) has held a connection grant in the tenant. */
export async function isSignedInPrincipal(store: Store, tenant: string, principal: string): Promise<boolean> {
  return Boolean(await store.get(signedInKey(tenant, principalIdentity(principal))));
}
