import { sha256Hex, toHex } from '../idempotency/canonical-json.ts';
import type { RecordStore } from '../stores/store.ts';
import { findTwin, twinKey, type TwinPointer } from './twin-calls.ts';

const THREAD = /^[\w.:@-]{1,200}$/;
const MAX_CALL_ID = 200;

export interface McpCallIdentity {
  thread_id: string;
  call_id: string;
  /** For a tool that can park, called without an id of the client's: where its parked twin is remembered, and the twin found there. */
  twin?: { key: string; found?: TwinPointer };
}

export interface McpCallIdentityInput {
  tenant: string;
  principal: string;
  tool: string;
  args: unknown;
  /** The call's `_meta` (thread and call id a client may name). */
  meta?: Record<string, unknown>;
  /** The call's `params.idempotencyKey`, when it gave one. */
  idempotencyKey?: string;
  /** The request's X-Toolgate-Thread and Idempotency-Key headers. */
  threadHeader?: string;
  idempotencyHeader?: string;
  /** The JSON-RPC request id: with the Idempotency-Key header, a retried POST maps onto the same calls. */
  requestId: string | number;
  /** Whether the tool can park (then a store is looked at for a parked twin). */
  canPark: boolean;
  store?: RecordStore;
}

/**
 * MCP has no thread or stable call id, so toolgate gives each call one. The thread comes from the
 * X-Toolgate-Thread header or `_meta["toolgate/thread_id"]` (else one thread per principal). The
 * call id is the client's when it gives one (`_meta["toolgate/call_id"]`, `params.idempotencyKey`,
 * the Idempotency-Key header with the request id): retries with it replay the stored result.
 * Otherwise every call is a new call with a fresh id, and runs again; except that a call of a
 * tool that can park takes the id of its parked twin, while there is one (twin-calls.ts).
 */
export async function mcpCallIdentity(input: McpCallIdentityInput): Promise<McpCallIdentity> {
  const requested = typeof input.meta?.['toolgate/thread_id'] === 'string' ? input.meta['toolgate/thread_id'] : input.threadHeader;
  const thread_id = requested && THREAD.test(requested) ? requested : `mcp:${input.principal}`;
  const given = explicitCallId(input.meta) ?? (await keyedCallId(input));
  if (given !== undefined) return { thread_id, call_id: given };
  if (!input.canPark || !input.store) return { thread_id, call_id: freshCallId() };
  const key = await twinKey({ tenant: input.tenant, principal: input.principal, thread_id, tool: input.tool, args: input.args });
  // A store that cannot be read finds no twin: the call is new (and its own claim fails closed).
  const found = await findTwin(input.store, key).catch(() => undefined);
  return { thread_id, call_id: found?.call_id ?? freshCallId(), twin: { key, ...(found ? { found } : {}) } };
}

/** An explicit call id (`_meta["toolgate/call_id"]`) is taken as given, as /v1/dispatch takes one. */
function explicitCallId(meta: Record<string, unknown> | undefined): string | undefined {
  const explicit = meta?.['toolgate/call_id'];
  return typeof explicit === 'string' && explicit.length > 0 && explicit.length <= MAX_CALL_ID ? explicit : undefined;
}

/**
 * A call id from the client's key: hashed with the principal, so another principal sharing the
 * thread cannot replay this one's results by sending the same key.
 */
async function keyedCallId(input: McpCallIdentityInput): Promise<string | undefined> {
  const keyed = (kind: string, ...parts: string[]) => sha256Hex([input.principal, ...parts].join('\u0000')).then((digest) => `mcp_${kind}_${digest.slice(0, 32)}`);
  if (input.idempotencyKey !== undefined) return keyed('key', input.idempotencyKey);
  if (input.idempotencyHeader !== undefined) return keyed('hdr', input.idempotencyHeader, JSON.stringify(input.requestId));
  return undefined;
}

function freshCallId(): string {
  return `mcp_${toHex(crypto.getRandomValues(new Uint8Array(12)))}`;
}
