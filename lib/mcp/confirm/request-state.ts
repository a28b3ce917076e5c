import { toHex } from '../../crypto/sha256.ts';
import type { JsonObject } from '../../registry/json.ts';
import type { RecordStore } from '../../stores/store.ts';

/**
 * The `requestState` of a `tools/call` answered `input_required` (2026-07-28 Multi Round-Trip
 * Requests): a random handle to a record in the store, so the retry that echoes it is tied to
 * exactly one parked call, and nothing about it is trusted from the client. The record binds the
 * tenant, the principal, the call (thread, call id, tool, arguments' hash) and its approval; it
 * expires, and it is taken once (compare-and-set), so a replayed, forged, foreign or stale handle
 * resumes nothing. A handle is attacker input: its shape is checked before the store is asked.
 */
export interface ConfirmRequestState {
  id: string;
  tenant: string;
  principal: string;
  thread_id: string;
  call_id: string;
  tool: string;
  /** SHA-256 of the call's arguments as the client sent them: the retry must send the same. */
  args_hash: string;
  approval_id: string;
  /** How many times this call has asked the client so far (the first answer is round 1). */
  round: number;
  /** When the handle stops resuming anything (ms); its record is kept as long again, so a late retry hears "expired". */
  expires_at: number;
}

/** What the retry must match: its caller and its call. */
export interface RetriedCall {
  tenant: string;
  principal: string;
  thread_id: string;
  tool: string;
  args_hash: string;
}

export type TakenState = { ok: true; state: ConfirmRequestState } | { ok: false; reason: 'unknown' | 'expired' | 'other_call' | 'used' };

export const REQUEST_STATE = /^tgs_[0-9a-f]{32}$/;
/** Long enough to open a page, sign in and decide; a late retry just sends the call again. */
export const REQUEST_STATE_TTL_MS = 10 * 60 * 1000;

const OPEN = 'confirm-open';
const USED = 'confirm-used';
const stateKey = (tenant: string, id: string) => `mcp-state/${encodeURIComponent(tenant)}/${id}`;

export function newRequestStateId(): string {
  return `tgs_${toHex(crypto.getRandomValues(new Uint8Array(16)))}`;
}

/** Stores the handle's record (durably, before the handle is handed out). */
export async function saveRequestState(store: RecordStore, state: ConfirmRequestState): Promise<void> {
  const outcome = await store.claim(stateKey(state.tenant, state.id), { state: OPEN, owner: state.id, expires_at: state.expires_at + REQUEST_STATE_TTL_MS, data: state as unknown as JsonObject });
  if (!outcome.claimed) throw new Error(`request state ${state.id} already exists`);
}

/**
 * The handle's record, taken for this retry: it must be this principal's (anyone else's, a
 * malformed or an unknown handle is "unknown", telling a stranger nothing), unexpired, for this
 * very call, and not taken before. A handle that fails for its own principal is left as it is.
 */
export async function takeRequestState(store: RecordStore, id: string, retried: RetriedCall, now: number): Promise<TakenState> {
  if (!REQUEST_STATE.test(id)) return { ok: false, reason: 'unknown' };
  const key = stateKey(retried.tenant, id);
  const record = await store.get(key);
  const state = record?.data as unknown as ConfirmRequestState | undefined;
  if (!record || !state || state.id !== id || state.tenant !== retried.tenant || state.principal !== retried.principal) return { ok: false, reason: 'unknown' };
  if (record.state === USED) return { ok: false, reason: 'used' };
  if (state.expires_at <= now) return { ok: false, reason: 'expired' };
  if (state.thread_id !== retried.thread_id || state.tool !== retried.tool || state.args_hash !== retried.args_hash) return { ok: false, reason: 'other_call' };
  // Kept as used until it expires, so a second retry hears why it is refused.
  const taken = await store.transition(key, { state: OPEN, owner: id }, { ...record, state: USED });
  return taken.ok ? { ok: true, state } : { ok: false, reason: 'used' };
}
