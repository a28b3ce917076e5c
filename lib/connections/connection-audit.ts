import type { AuditRecorder } from '../audit/recorder.ts';
import type { JsonObject } from '../registry/json.ts';
import type { GrantOwner } from './grant-store.ts';

/** The audit thread of every tenant's connection grants. */
export const CONNECTIONS_THREAD = '_connections';

export type ConnectionEvent = 'connection.granted' | 'connection.refresh_failed' | 'connection.revoked';

/**
 * Audits a grant's life in `_connections`: whose grant, which connection, who acted (the user, an
 * admin, the gateway) and what was said. Never a token: the fields are what `data` names.
 */
export async function auditConnection(audit: AuditRecorder | undefined, type: ConnectionEvent, owner: GrantOwner, by: string, data: JsonObject = {}): Promise<void> {
  await audit?.record({ tenant: owner.tenant, thread_id: CONNECTIONS_THREAD }, [
    { type, call_id: null, tool: null, principal: by, args_hash: null, data: { principal: owner.principal, connection: owner.connection, ...data } },
  ]);
}
