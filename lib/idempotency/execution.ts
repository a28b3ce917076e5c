import type { JsonObject } from '../registry/json.ts';
import type { CommitRequest, StateRecord, TransitionExpectation } from '../stores/store.ts';
import type { ClaimRequest } from './claim.ts';

/**
 * The state of a call's record once its side effect has started. Unlike the `in_progress` lease
 * taken by the claim, it has no `claimable_after`: no retry can ever take it over and run the call
 * a second time. Its deadline (in data) says when the run must have ended; past it, the outcome
 * was lost (the process stopped mid-call) and the call is settled as `indeterminate`.
 */
export const EXECUTING = 'executing';

/** Who started the side effect and until when it may run; kept in the executing record's data. */
export interface ExecutionStart {
  call_id: string;
  principal: string;
  /** ms since epoch: the start plus the tool's timeout plus the lease grace. */
  deadline: number;
  manifest_version?: string;
  /** Set when the call runs because a human approved it. */
  approval_id?: string;
}

/** The record change that marks a claimed (or parked) call as executing, committed before its side effect starts. */
export function executingChange(request: ClaimRequest, owner: string, start: ExecutionStart, from: TransitionExpectation): NonNullable<CommitRequest['record']> {
  const data: JsonObject = { args_hash: request.args_hash, tool: request.tool, ...start };
  return { key: request.key, expect: from, next: { state: EXECUTING, owner, expires_at: request.now + request.ttl_ms, data } };
}

/** The deadline of an executing record. */
export function executionDeadline(record: StateRecord): number {
  return Number(record.data.deadline);
}

/** Whether the record is a side effect that started and should have ended by `now`: its outcome was lost. */
export function isAbandonedExecution(record: StateRecord, now: number): boolean {
  return record.state === EXECUTING && !(executionDeadline(record) > now);
}

/** What an executing record says about the call that started it. */
export function executionStartOf(record: StateRecord): ExecutionStart {
  const { call_id, principal, deadline, manifest_version, approval_id } = record.data;
  return {
    call_id: String(call_id),
    principal: String(principal),
    deadline: Number(deadline),
    ...(typeof manifest_version === 'string' ? { manifest_version } : {}),
    ...(typeof approval_id === 'string' ? { approval_id } : {}),
  };
}
