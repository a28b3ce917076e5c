import { ToolError } from '../registry/errors.ts';
import type { ToolExecutionContext } from '../registry/executor.ts';
import type { ConnectionAccess } from './connection-access.ts';

/** An executor's `auth`: send the calling user's token of this connection. */
export interface ExecutorAuth {
  connection: string;
}

/** The executor's `auth` as a manifest wrote it (checked at publish), or undefined. */
export function executorAuthOf(auth: unknown): ExecutorAuth | undefined {
  const connection = typeof auth === 'object' && auth !== null ? (auth as { connection?: unknown }).connection : undefined;
  return typeof connection === 'string' ? { connection } : undefined;
}

/**
 * The Authorization header carrying the calling user's own token, for an executor with `auth`
 * (none without). It replaces any Authorization the manifest's headers set: the user's token is
 * what the tool is declared to send.
 */
export async function userAuthorization(auth: ExecutorAuth | undefined, connections: ConnectionAccess | undefined, context: ToolExecutionContext): Promise<Record<string, string>> {
  if (!auth) return {};
  if (!connections) throw new ToolError('unavailable', `connection "${auth.connection}" cannot be used here: this gateway holds no connection grants (the operator sets TOOLGATE_CONNECTION_KEYS). Nothing was sent.`, { connection: auth.connection });
  return { authorization: `Bearer ${await connections.accessToken(auth.connection, context)}` };
}

/** Header entries without any Authorization, whatever its case. */
export function withoutAuthorization(entries: Array<[string, string]>): Array<[string, string]> {
  return entries.filter(([name]) => name.toLowerCase() !== 'authorization');
}
