import type { GovernanceDecision, GovernanceRequest, Governor } from '../governance/policy.ts';
import type { Manifest } from '../registry/manifest/manifest.ts';
import type { Store } from '../stores/store.ts';
import { grantKey, type GrantOwner } from './grant-store.ts';

const part = encodeURIComponent;
const usedKey = (owner: GrantOwner) => `conn-used/${part(owner.tenant)}/${part(owner.principal)}/${part(owner.connection)}`;

/** A principal's token of the connection has been sent upstream (since its last consent): its first use is behind it. */
export async function markUsed(store: Store, owner: GrantOwner): Promise<void> {
  if (await store.get(usedKey(owner))) return;
  await store.put(usedKey(owner), { state: 'used', expires_at: 0, data: {} });
}

/** Forgets the first use (a revoked or re-given grant): the next call through it is a first use again. */
export async function forgetUse(store: Store, owner: GrantOwner): Promise<void> {
  await store.remove(usedKey(owner), { state: 'used' });
}

/** The connection each tool sends its user's token through, for the connections with `approval_on_first_use`. */
function firstUseConnections(manifest: Manifest): Map<string, string> {
  const guarded = new Set(Object.entries(manifest.connections ?? {}).flatMap(([name, settings]) => (settings.approval_on_first_use ? [name] : [])));
  return new Map(manifest.tools.flatMap((tool) => {
    const connection = (tool.executor.auth as { connection?: unknown } | undefined)?.connection;
    return typeof connection === 'string' && guarded.has(connection) ? [[tool.name, connection] as const] : [];
  }));
}

/**
 * The policy, and before it a connection's `approval_on_first_use`: a call that would run (or wait
 * for its caller's own confirmation) through such a connection, by a principal whose token of it
 * was never sent since they connected, waits for an approver instead. A principal without a grant
 * is not asked yet: the call goes on to answer `authorization_required`, and the call re-sent
 * after consenting is the first use. Denials and reviews the policy says stand.
 */
export function firstUseGovernor(inner: Governor, manifest: Manifest, store: Store | undefined): Governor {
  const connections = firstUseConnections(manifest);
  if (connections.size === 0 || !store) return inner;
  const tokenExchange = (connection: string) => manifest.connections?.[connection]?.grant === 'token_exchange';
  return {
    async decide(request: GovernanceRequest): Promise<GovernanceDecision> {
      const decision = await inner.decide(request);
      const connection = connections.get(request.definition.name);
      if (!connection || decision.action === 'deny' || decision.action === 'review') return decision;
      const owner = { tenant: manifest.tenant, principal: request.principal, connection };
      if (await store.get(usedKey(owner))) return decision;
      if (!tokenExchange(connection) && !(await store.get(grantKey(owner)))) return decision;
      return { action: 'review', reason: `first use of connection "${connection}" by ${request.principal} needs approval` };
    },
    mayReview: (definition) => connections.has(definition.name) || (inner.mayReview?.(definition) ?? true),
  };
}
