import { canonicalJson, sha256Hex } from '../idempotency/canonical-json.ts';
import type { JsonObject } from '../registry/json.ts';
import type { RecordStore } from '../stores/store.ts';

/**
 * A parked call's twin pointer. An MCP client without tasks learns a parked call's outcome the
 * only way it can: by sending the same call again. Each MCP call is otherwise a new call (it runs
 * again), so while a call waits for approval its caller's identical calls (same principal,
 * thread, tool and arguments) are pointed at it: they get its current state, not a second
 * approval. Once its outcome (result, rejection, expiry) has been delivered once, the pointer is
 * deleted (compare-and-delete on the call id) and identical calls are new calls again. Only
 * tools that can park have pointers, so read tools never pay the lookup.
 */

export interface TwinPointer {
  call_id: string;
  approval_id: string;
  /** The task a task-capable client was given for the call: re-sent under tasks, it gets the same task. */
  task_id?: string;
}

/** Pointers are kept as `parked` records owned by their call id. */
const STATE = 'parked';

/** Where identical calls of one principal in one thread find their parked twin. */
export async function twinKey(parts: { tenant: string; principal: string; thread_id: string; tool: string; args: unknown }): Promise<string> {
  const digest = await sha256Hex(canonicalJson([parts.tool, parts.args ?? {}]));
  const scope = [parts.tenant, parts.principal, parts.thread_id].map(encodeURIComponent).join('/');
  return `mcp-twin/${scope}/${digest}`;
}

export async function findTwin(store: RecordStore, key: string): Promise<TwinPointer | undefined> {
  const record = await store.get(key);
  if (record?.state !== STATE || typeof record.data.call_id !== 'string' || typeof record.data.approval_id !== 'string') return undefined;
  return { call_id: record.data.call_id, approval_id: record.data.approval_id, ...(typeof record.data.task_id === 'string' ? { task_id: record.data.task_id } : {}) };
}

/** Points identical calls at a parked call until `expiresAt` (ms), or until its outcome is delivered. */
export async function rememberTwin(store: RecordStore, key: string, pointer: TwinPointer, expiresAt: number): Promise<void> {
  await store.put(key, { state: STATE, owner: pointer.call_id, expires_at: expiresAt, data: pointer as unknown as JsonObject });
}

/** Adds the task a client was given to the pointer, while it still points at the same call. */
export async function attachTwinTask(store: RecordStore, key: string, pointer: TwinPointer & { task_id: string }, expiresAt: number): Promise<void> {
  await store.transition(key, { state: STATE, owner: pointer.call_id }, { state: STATE, owner: pointer.call_id, expires_at: expiresAt, data: pointer as unknown as JsonObject });
}

/**
 * The call's outcome was delivered: identical calls are new calls from now on. Compare-and-delete
 * on the call id, so a pointer a newer parked call wrote meanwhile stays (and two deliveries
 * racing here both deliver: at least once).
 */
export async function forgetTwin(store: RecordStore, key: string, callId: string): Promise<void> {
  await store.remove(key, { state: STATE, owner: callId });
}
