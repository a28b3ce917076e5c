import type { JsonObject } from '../registry/json.ts';
import type { LimitCounters } from './limit-counters.ts';

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

/** The record half of the Store port: idempotency claims, approvals, API keys, manifests. */
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

/** One thread's audit trail is addressed by tenant and thread. */
export interface ThreadRef {
  tenant: string;
  thread_id: string;
}

/** The last envelope of a thread's chain. */
export interface AuditHead {
  seq: number;
  hash: string;
}

/** An envelope as stored: the store keeps it verbatim and only checks the chain position. */
export interface StoredEnvelope {
  seq: number;
  prev_hash: string | null;
  hash: string;
  [field: string]: unknown;
}

export interface AuditPage {
  envelopes: StoredEnvelope[];
  /** Pass back as `after_seq` for the next page; absent on the last page. */
  next_after_seq?: number;
}

/** Envelopes already chained onto `expected` (null = the thread has none yet). */
export interface AppendRequest {
  thread: ThreadRef;
  expected: AuditHead | null;
  envelopes: StoredEnvelope[];
}

export type AppendOutcome = { ok: true; head: AuditHead } | { ok: false; head: AuditHead | null };

/** A record change and an audit append sent together (one round trip on remote stores). */
export interface CommitRequest {
  /** `next: null` deletes the record when the expectation holds. */
  record?: { key: string; expect: TransitionExpectation; next: StateRecord | null };
  append?: AppendRequest;
}

/** Each part succeeds or fails on its own condition. */
export interface CommitOutcome {
  record?: TransitionOutcome;
  append?: AppendOutcome;
}

/** The Store port: records, audit chains and ordered indexes (DESIGN.md lib/stores). */
export interface Store extends RecordStore {
  readAuditHead(thread: ThreadRef): Promise<AuditHead | null>;
  listAudit(thread: ThreadRef, page: { after_seq?: number; limit: number }): Promise<AuditPage>;
  /** A claim and the thread's audit head in one round trip. */
  claimWithHead(key: string, record: StateRecord, thread: ThreadRef): Promise<{ claim: ClaimOutcome; head: AuditHead | null }>;
  /** A record change and an audit append in one round trip. */
  commit(request: CommitRequest): Promise<CommitOutcome>;
  /** Adds (or re-scores) a member of an ordered index (approvals of a tenant, manifest versions). */
  addToIndex(index: string, member: string, score: number): Promise<void>;
  /** Removes a member from an ordered index (nothing happens if it is not there). */
  removeFromIndex(index: string, member: string): Promise<void>;
  /** Members in ascending score order, after `after_score` (exclusive). */
  listIndex(index: string, page: { after_score?: number; limit: number }): Promise<Array<{ member: string; score: number }>>;
  /** Releases connections; the store is unusable afterwards. */
  close(): Promise<void>;
  /** Quota and rate-limit counters in one atomic step each, where the store has a cheaper way than compare-and-set over records (Upstash, DynamoDB). */
  limitCounters?(): LimitCounters;
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

export const threadKey = (thread: ThreadRef) => `${encodeURIComponent(thread.tenant)}/${encodeURIComponent(thread.thread_id)}`;

/** Whether `expected` is the thread's current head (both absent, or the same position and hash). */
export function headMatches(current: AuditHead | null, expected: AuditHead | null): boolean {
  if (current === null || expected === null) return current === expected;
  return current.seq === expected.seq && current.hash === expected.hash;
}
