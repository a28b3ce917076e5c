import type { JsonObject } from '../registry/json.ts';

/**
 * A stored record with a lifecycle. `state` is what compare-and-set checks; `owner` names who
 * holds a lease; `claimable_after` (ms since epoch) lets an abandoned lease be claimed again;
 * `expires_at` (ms since epoch, 0 = never) is when the record stops existing.
 */
export interface StateRecord {
  state: string;
  owner?: string;
  claimable_after?: number;
  expires_at: number;
  data: JsonObject;
}

export type ClaimOutcome = { claimed: true } | { claimed: false; existing: StateRecord };
export type TransitionOutcome = { ok: true } | { ok: false; current: StateRecord | undefined };

export interface TransitionExpectation {
  state: string | string[];
  owner?: string;
}

/** The record half of the Store port: what idempotency, approvals, keys and manifests need. */
export interface RecordStore {
  /** Human-readable adapter name, used in `unavailable` messages. */
  readonly name: string;
  /**
   * Writes `record` unless a live record exists at `key` (atomic). A record is not live once
   * it expired, or once its `claimable_after` passed (an abandoned lease).
   */
  claim(key: string, record: StateRecord): Promise<ClaimOutcome>;
  /** Replaces the record only if its state (and owner, when given) match (atomic). */
  transition(key: string, expect: TransitionExpectation, next: StateRecord): Promise<TransitionOutcome>;
  get(key: string): Promise<StateRecord | undefined>;
  /** Unconditional write. */
  put(key: string, record: StateRecord): Promise<void>;
  /** Deletes only if the state (and owner) match; returns whether it deleted. */
  remove(key: string, expect: TransitionExpectation): Promise<boolean>;
}

/** Thrown by adapters when the backing service cannot be reached or answers garbage. */
export class StoreUnavailableError extends Error {
  readonly store: string;

  constructor(store: string, cause: unknown) {
    super(`store "${store}" is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'StoreUnavailableError';
    this.store = store;
  }
}

export function isLive(record: StateRecord, now: number): boolean {
  if (record.expires_at !== 0 && record.expires_at <= now) return false;
  return record.claimable_after === undefined || record.claimable_after > now;
}

export function matches(record: StateRecord | undefined, expect: TransitionExpectation, now: number): record is StateRecord {
  if (record === undefined || (record.expires_at !== 0 && record.expires_at <= now)) return false;
  const states = Array.isArray(expect.state) ? expect.state : [expect.state];
  return states.includes(record.state) && (expect.owner === undefined || record.owner === expect.owner);
}
