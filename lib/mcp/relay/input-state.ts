import { toHex } from '../../crypto/sha256.ts';
import type { JsonObject } from '../../registry/json.ts';
import type { RecordStore } from '../../stores/store.ts';
import type { UpstreamRequest } from './client-asker.ts';
import { REPLY_TTL_MS } from './reply-slots.ts';

/**
 * The `requestState` of a `tools/call` answered `input_required` because its upstream asked the
 * client something (2026-07-28 Multi Round-Trip Requests): a random handle (`tgi_…`) to a record
 * that binds the tenant, the principal, the call (thread, tool, arguments' hash), the call's step
 * channel and the requests the retry must answer. It is attacker input: checked for shape before
 * the store is asked, refused unless every binding matches, good for one retry before it expires.
 */
export interface InputRequestState {
  id: string;
  tenant: string;
  principal: string;
  thread_id: string;
  tool: string;
  args_hash: string;
  channel: string;
  /** The step the retry's answers belong to: the next one read is seq + 1. */
  seq: number;
  /** The requests this round asked, by key (each key the id of its reply slot). */
  requests: Record<string, UpstreamRequest>;
  expires_at: number;
}

export type RetriedInputCall = Pick<InputRequestState, 'tenant' | 'principal' | 'thread_id' | 'tool' | 'args_hash'>;

export type TakenInputState = { ok: true; state: InputRequestState } | { ok: false; reason: 'unknown' | 'expired' | 'other_call' | 'used' } | { ok: false; reason: 'invalid'; message: string };

export const INPUT_STATE = /^tgi_[0-9a-f]{32}$/;
const OPEN = 'input-open';
const USED = 'input-used';
const stateKey = (tenant: string, id: string) => `mcp-input-state/${encodeURIComponent(tenant)}/${id}`;

export const newInputStateId = (): string => `tgi_${toHex(crypto.getRandomValues(new Uint8Array(16)))}`;

export async function saveInputState(store: RecordStore, state: InputRequestState): Promise<void> {
  const outcome = await store.claim(stateKey(state.tenant, state.id), { state: OPEN, owner: state.id, expires_at: state.expires_at + REPLY_TTL_MS, data: state as unknown as JsonObject });
  if (!outcome.claimed) throw new Error(`request state ${state.id} already exists`);
}

/**
 * The record behind `id`, taken for this retry when it is this principal's (else "unknown"),
 * unexpired, for this very call, unused, and `check` finds nothing wrong with the retry's answers
 * (a retry refused for its answers leaves the handle as it was, to be retried with good ones).
 */
export async function takeInputState(store: RecordStore, id: string, retried: RetriedInputCall, now: number, check: (state: InputRequestState) => string | undefined): Promise<TakenInputState> {
  if (!INPUT_STATE.test(id)) return { ok: false, reason: 'unknown' };
  const key = stateKey(retried.tenant, id);
  const record = await store.get(key);
  const state = record?.data as unknown as InputRequestState | undefined;
  if (!record || !state || state.id !== id || state.tenant !== retried.tenant || state.principal !== retried.principal) return { ok: false, reason: 'unknown' };
  if (record.state === USED) return { ok: false, reason: 'used' };
  if (state.expires_at <= now) return { ok: false, reason: 'expired' };
  if (state.thread_id !== retried.thread_id || state.tool !== retried.tool || state.args_hash !== retried.args_hash) return { ok: false, reason: 'other_call' };
  const problem = check(state);
  if (problem) return { ok: false, reason: 'invalid', message: problem };
  const taken = await store.transition(key, { state: OPEN, owner: id }, { ...record, state: USED });
  return taken.ok ? { ok: true, state } : { ok: false, reason: 'used' };
}
