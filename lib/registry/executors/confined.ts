import type { ConnectionAccess } from '../../connections/connection-access.ts';
import { MissingSecretError, secretName, type ResolveSecret } from '../../crypto/secrets.ts';
import { egressFetch, type Fetch } from '../../egress/fetch.ts';
import { EgressPolicy } from '../../egress/policy.ts';
import type { ExecutorKindContext } from './kind.ts';

/** A manifest built without grants resolves nothing. */
const noSecrets: ResolveSecret = (reference) => {
  throw new MissingSecretError(secretName(reference) ?? reference, `secret ${reference} cannot resolve: no secrets are granted to this manifest's tenant`);
};

const defaultEgress = egressFetch(new EgressPolicy());

/**
 * What a manifest-built executor may use: its tenant's secrets and the gateway's egress, or,
 * when whoever built the registry gave neither, no secrets and the policy with no exceptions.
 * Deny by default: a manifest is never trusted with the process's environment or network.
 */
export function confinedAccess(context: ExecutorKindContext): { secrets: ResolveSecret; fetch: Fetch; connections?: ConnectionAccess } {
  return { secrets: context.secrets ?? noSecrets, fetch: context.egress ?? defaultEgress, ...(context.connections ? { connections: context.connections } : {}) };
}
