import type { DynamoDbClient } from './client.ts';
import { appendedHead, appendEnvelopes, appendWrites, failedAppend, listEnvelopes, readHead } from './audit.ts';
import { addIndexMember, listIndexMembers, removeIndexMember } from './ordered-index.ts';
import { changeRecord, changeWrite, claimRecord, failedChange, liveRecord, putRecord, removeRecord } from './records.ts';
import { held, transact, type DynamoDbContext } from './requests.ts';
import { dynamoDbLimitCounters } from './limits.ts';
import type { LimitCounters } from '../limit-counters.ts';
import type {
  AppendOutcome,
  AppendRequest,
  AuditHead,
  AuditPage,
  ClaimOutcome,
  CommitOutcome,
  CommitRequest,
  StateRecord,
  Store,
  ThreadRef,
  TransitionExpectation,
  TransitionOutcome,
} from '../store.ts';

export { createDynamoDbClient, DynamoDbError, type DynamoDbClient, type DynamoDbClientOptions } from './client.ts';
export { createDynamoDbTable } from './table.ts';

/** Budget for one request to DynamoDB, client retries included: a dead store fails fast. */
export const DYNAMODB_CALL_DEADLINE_MS = 5_000;

export interface DynamoDbStoreOptions {
  /** From createDynamoDbClient. */
  client: DynamoDbClient;
  /** A table made by createDynamoDbTable (string keys `pk` and `sk`). */
  table: string;
  /** The clock expiry is compared against (ms since epoch); tests inject one. */
  now?: () => number;
  deadlineMs?: number;
}

/**
 * The Store port on one DynamoDB table (layout in docs/stores.md, "Item layout"). Records, audit
 * chains and indexes are conditional writes, so several gateway instances can share the table.
 * Any failure other than a failed condition throws StoreUnavailableError.
 */
export class DynamoDbStore implements Store {
  readonly name: string = 'dynamodb';
  readonly #ctx: DynamoDbContext;

  constructor(options: DynamoDbStoreOptions) {
    this.#ctx = { client: options.client, table: options.table, now: options.now ?? Date.now, deadlineMs: options.deadlineMs ?? DYNAMODB_CALL_DEADLINE_MS };
  }

  claim(key: string, record: StateRecord): Promise<ClaimOutcome> {
    return claimRecord(this.#ctx, key, record);
  }

  transition(key: string, expect: TransitionExpectation, next: StateRecord): Promise<TransitionOutcome> {
    return changeRecord(this.#ctx, key, expect, next);
  }

  get(key: string): Promise<StateRecord | undefined> {
    return liveRecord(this.#ctx, key);
  }

  put(key: string, record: StateRecord): Promise<void> {
    return putRecord(this.#ctx, key, record);
  }

  remove(key: string, expect: TransitionExpectation): Promise<boolean> {
    return removeRecord(this.#ctx, key, expect);
  }

  readAuditHead(thread: ThreadRef): Promise<AuditHead | null> {
    return readHead(this.#ctx, thread);
  }

  listAudit(thread: ThreadRef, page: { after_seq?: number; limit: number }): Promise<AuditPage> {
    return listEnvelopes(this.#ctx, thread, page);
  }

  /** Two requests sent together: one round trip of latency. */
  async claimWithHead(key: string, record: StateRecord, thread: ThreadRef): Promise<{ claim: ClaimOutcome; head: AuditHead | null }> {
    const [claim, head] = await Promise.all([claimRecord(this.#ctx, key, record), readHead(this.#ctx, thread)]);
    return { claim, head };
  }

  async commit(request: CommitRequest): Promise<CommitOutcome> {
    const { record, append } = request;
    if (record && append && append.envelopes.length > 0) return this.#commitTogether(record, append);
    const [recordOutcome, appendOutcome] = await Promise.all([
      record ? changeRecord(this.#ctx, record.key, record.expect, record.next) : undefined,
      append ? appendEnvelopes(this.#ctx, append) : undefined,
    ]);
    return { ...(recordOutcome ? { record: recordOutcome } : {}), ...(appendOutcome ? { append: appendOutcome } : {}) };
  }

  addToIndex(index: string, member: string, score: number): Promise<void> {
    return addIndexMember(this.#ctx, index, member, score);
  }

  removeFromIndex(index: string, member: string): Promise<void> {
    return removeIndexMember(this.#ctx, index, member);
  }

  listIndex(index: string, page: { after_score?: number; limit: number }): Promise<Array<{ member: string; score: number }>> {
    return listIndexMembers(this.#ctx, index, page);
  }

  /** Quota and rate-limit counters as conditional updates (dynamodb-limits.ts). */
  limitCounters(): LimitCounters {
    return dynamoDbLimitCounters(this.#ctx);
  }

  /** Nothing to release: each request is a fetch of its own. */
  async close(): Promise<void> {}

  /**
   * The record change and the append as ONE TransactWriteItems: one request in the normal case.
   * A transaction is all-or-nothing, but the port says each part succeeds on its own condition.
   * So when DynamoDB cancels it, its CancellationReasons (one per write, `None` where that
   * write's condition held) tell the parts apart: a part whose conditions all held is sent again
   * on its own (conditional again, so anything that raced in meanwhile is still caught), and a
   * part that failed is answered by reading the current record or head. Both go out together,
   * so the failure path costs one more round trip and the normal path none.
   */
  async #commitTogether(record: NonNullable<CommitRequest['record']>, append: AppendRequest): Promise<CommitOutcome> {
    const ctx = this.#ctx;
    const writes = [await changeWrite(ctx, record.key, record.expect, record.next), ...(await appendWrites(ctx, append, 1))];
    const reasons = await transact(ctx, writes);
    if (!reasons) return { record: { ok: true }, append: { ok: true, head: appendedHead(append) } as AppendOutcome };
    const recordHeld = held(reasons[0]);
    const appendHeld = reasons.length === writes.length && reasons.slice(1).every(held);
    const [recordOutcome, appendOutcome] = await Promise.all([
      recordHeld ? changeRecord(ctx, record.key, record.expect, record.next) : failedChange(ctx, record.key),
      appendHeld ? appendEnvelopes(ctx, append) : failedAppend(ctx, append.thread),
    ]);
    return { record: recordOutcome, append: appendOutcome };
  }
}
