import { toHex } from '../../crypto/sha256.ts';
import type { JsonObject } from '../../registry/json.ts';
import type { RecordStore } from '../../stores/store.ts';
import { takeCallHandle, type CallHandleRecord, type RetriedCall, type TakenHandle } from '../call-handle.ts';

export type { RetriedCall } from '../call-handle.ts';

/**
 * The `requestState` of a `tools/call` answered `input_required` (2026-07-28 Multi Round-Trip
 * Requests): a random handle to a record in the store, so the retry that echoes it is tied to
 * exactly one parked call, and nothing about it is trusted from the client. The record binds the
 * tenant, the principal, the call (thread, call id, tool, arguments' hash) and its approval; it
 * expires, and it is taken once (compare-and-set), so a replayed, forged, foreign or stale handle
 * resumes nothing. A handle is attacker input: its shape is checked before the store is asked.
 */
export interface ConfirmRequestState extends CallHandleRecord {
  call_id: string;
  approval_id: string;
  /** How many times this call has asked the client so far (the first answer is round 1). */
  round: number;
}

export type TakenState = TakenHandle<ConfirmRequestState>;

export const REQUEST_STATE = /^tgs_[0-9a-f]{32}$/;
/** Long enough to open a page, sign in and decide; a late retry just sends the call again. */
export const REQUEST_STATE_TTL_MS = 10 * 60 * 1000;

const STATES = { open: 'confirm-open', used: 'confirm-used' };
const stateKey = (tenant: string, id: string) => `mcp-state/${encodeURIComponent(tenant)}/${id}`;

export function newRequestStateId(): string {
  return `tgs_${toHex(crypto.getRandomValues(new Uint8Array(16)))}`;
}

/** Stores the handle's record (durably, before the handle is handed out). */
export async function saveRequestState(store: RecordStore, state: ConfirmRequestState): Promise<void> {
  const outcome = await store.claim(stateKey(state.tenant, state.id), { state: STATES.open, owner: state.id, expires_at: state.expires_at + REQUEST_STATE_TTL_MS, data: state as unknown as JsonObject });
  if (!outcome.claimed) throw new Error(`request state ${state.id} already exists`);
}

/** The handle's record, taken for this retry (call-handle.ts says what must match). */
export async function takeRequestState(store: RecordStore, id: string, retried: RetriedCall, now: number): Promise<TakenState> {
  if (!REQUEST_STATE.test(id)) return { ok: false, reason: 'unknown' };
  return takeCallHandle<ConfirmRequestState>(store, stateKey(retried.tenant, id), id, retried, now, STATES);
}
