import type { RecordStore } from '../stores/store.ts';

/**
 * What every `requestState` handle's record binds (2026-07-28 Multi Round-Trip Requests: the
 * confirm flow's `tgs_…` and the relay's `tgi_…`): its caller, its call and its expiry. The handle
 * is attacker input; a record is taken once (compare-and-set), so a replayed, forged, foreign or
 * stale handle resumes nothing.
 */
export interface CallHandleRecord {
  id: string;
  tenant: string;
  principal: string;
  thread_id: string;
  tool: string;
  /** SHA-256 of the call's arguments as the client sent them: the retry must send the same. */
  args_hash: string;
  /** When the handle stops resuming anything (ms). */
  expires_at: number;
}

/** What the retry must match: its caller and its call. */
export type RetriedCall = Pick<CallHandleRecord, 'tenant' | 'principal' | 'thread_id' | 'tool' | 'args_hash'>;

export type TakenHandle<T> = { ok: true; state: T } | { ok: false; reason: 'unknown' | 'expired' | 'other_call' | 'used' };
export type RefusedAnswers = { ok: false; reason: 'invalid'; message: string };

/** The record's states: open until a retry takes it, then kept as used until it expires, so a second retry hears why. */
export interface HandleStates {
  open: string;
  used: string;
}

/**
 * The record at `key`, taken for this retry: it must be this principal's (anyone else's, or an
 * unknown handle, is "unknown", telling a stranger nothing), unexpired, for this very call, not
 * taken before, and `check` (when given) must find nothing wrong with the retry. A handle that
 * fails for its own principal is left as it is, to be retried.
 */
export async function takeCallHandle<T extends CallHandleRecord>(store: RecordStore, key: string, id: string, retried: RetriedCall, now: number, states: HandleStates): Promise<TakenHandle<T>>;
export async function takeCallHandle<T extends CallHandleRecord>(store: RecordStore, key: string, id: string, retried: RetriedCall, now: number, states: HandleStates, check: (state: T) => string | undefined): Promise<TakenHandle<T> | RefusedAnswers>;
export async function takeCallHandle<T extends CallHandleRecord>(store: RecordStore, key: string, id: string, retried: RetriedCall, now: number, states: HandleStates, check?: (state: T) => string | undefined): Promise<TakenHandle<T> | RefusedAnswers> {
  const record = await store.get(key);
  const state = record?.data as unknown as T | undefined;
  if (!record || !state || state.id !== id || state.tenant !== retried.tenant || state.principal !== retried.principal) return { ok: false, reason: 'unknown' };
  if (record.state === states.used) return { ok: false, reason: 'used' };
  if (state.expires_at <= now) return { ok: false, reason: 'expired' };
  if (state.thread_id !== retried.thread_id || state.tool !== retried.tool || state.args_hash !== retried.args_hash) return { ok: false, reason: 'other_call' };
  const problem = check?.(state);
  if (problem) return { ok: false, reason: 'invalid', message: problem };
  const taken = await store.transition(key, { state: states.open, owner: id }, { ...record, state: states.used });
  return taken.ok ? { ok: true, state } : { ok: false, reason: 'used' };
}
