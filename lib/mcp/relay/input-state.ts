import { toHex } from '../../crypto/sha256.ts';
import type { JsonObject } from '../../registry/json.ts';
import type { RecordStore } from '../../stores/store.ts';
import { takeCallHandle, type CallHandleRecord, type RefusedAnswers, type RetriedCall, type TakenHandle } from '../call-handle.ts';
import type { UpstreamRequest } from './client-asker.ts';
import { REPLY_TTL_MS } from './reply-slots.ts';

/**
 * The `requestState` of a `tools/call` answered `input_required` because its upstream asked the
 * client something (2026-07-28 Multi Round-Trip Requests): a random handle (`tgi_…`) to a record
 * that binds the tenant, the principal, the call (thread, tool, arguments' hash), the call's step
 * channel and the requests the retry must answer. It is attacker input: checked for shape before
 * the store is asked, refused unless every binding matches, good for one retry before it expires.
 */
export interface InputRequestState extends CallHandleRecord {
  channel: string;
  /** The step the retry's answers belong to: the next one read is seq + 1. */
  seq: number;
  /** The requests this round asked, by key (each key the id of its reply slot). */
  requests: Record<string, UpstreamRequest>;
}

export type RetriedInputCall = RetriedCall;

export type TakenInputState = TakenHandle<InputRequestState> | RefusedAnswers;

export const INPUT_STATE = /^tgi_[0-9a-f]{32}$/;
const STATES = { open: 'input-open', used: 'input-used' };
const stateKey = (tenant: string, id: string) => `mcp-input-state/${encodeURIComponent(tenant)}/${id}`;

export const newInputStateId = (): string => `tgi_${toHex(crypto.getRandomValues(new Uint8Array(16)))}`;

export async function saveInputState(store: RecordStore, state: InputRequestState): Promise<void> {
  const outcome = await store.claim(stateKey(state.tenant, state.id), { state: STATES.open, owner: state.id, expires_at: state.expires_at + REPLY_TTL_MS, data: state as unknown as JsonObject });
  if (!outcome.claimed) throw new Error(`request state ${state.id} already exists`);
}

/**
 * The record behind `id`, taken for this retry when it is this principal's (else "unknown"),
 * unexpired, for this very call, unused, and `check` finds nothing wrong with the retry's answers
 * (a retry refused for its answers leaves the handle as it was, to be retried with good ones).
 */
export async function takeInputState(store: RecordStore, id: string, retried: RetriedInputCall, now: number, check: (state: InputRequestState) => string | undefined): Promise<TakenInputState> {
  if (!INPUT_STATE.test(id)) return { ok: false, reason: 'unknown' };
  return takeCallHandle<InputRequestState>(store, stateKey(retried.tenant, id), id, retried, now, STATES, check);
}
