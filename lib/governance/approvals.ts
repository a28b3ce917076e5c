import { toHex } from '../crypto/sha256.ts';
import type { JsonObject } from '../registry/json.ts';
import { checkPageLimit } from '../stores/page-limit.ts';
import type { Store } from '../stores/store.ts';
import type { Approval, ApprovalState, DecisionChannel } from './approval.ts';

/** Decided approvals stay readable this long after they expire. */
const RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
export const DEFAULT_APPROVAL_TTL_SECONDS = 3600;

export const approvalKey = (id: string) => `approval/${id}`;
export const approvalIndex = (tenant: string) => `approvals/${encodeURIComponent(tenant)}`;

export function newApprovalId(): string {
  return `apr_${toHex(crypto.getRandomValues(new Uint8Array(12)))}`;
}

function recordOf(approval: Approval) {
  return { state: approval.state, expires_at: Date.parse(approval.expires_at) + RETENTION_MS, data: approval as unknown as JsonObject };
}

/** Stores a new pending approval and indexes it under its tenant. */
export async function saveNewApproval(store: Store, approval: Approval): Promise<void> {
  const outcome = await store.claim(approvalKey(approval.id), recordOf(approval));
  if (!outcome.claimed) throw new Error(`approval id ${approval.id} already exists`);
  // Microseconds plus a random tail: listing pages on scores, so two approvals must not share one.
  const score = Date.parse(approval.created_at) * 1000 + Math.floor(Math.random() * 1000);
  await store.addToIndex(approvalIndex(approval.tenant), approval.id, score);
}

/** The approval, with a pending one past its expiry turned into `expired` (once, atomically). */
export async function loadApproval(store: Store, id: string, now = Date.now()): Promise<Approval | undefined> {
  const record = await store.get(approvalKey(id));
  if (!record) return undefined;
  const approval = record.data as unknown as Approval;
  if (approval.state !== 'pending' || Date.parse(approval.expires_at) > now) return approval;
  const expired: Approval = { ...approval, state: 'expired', decided_at: new Date(now).toISOString() };
  const outcome = await store.transition(approvalKey(id), { state: 'pending' }, recordOf(expired));
  return outcome.ok ? expired : ((outcome.current?.data as unknown as Approval | undefined) ?? approval);
}

/** Moves an approval from one state to the next; false when another writer got there first. */
export async function advanceApproval(store: Store, from: ApprovalState, next: Approval): Promise<boolean> {
  return (await store.transition(approvalKey(next.id), { state: from }, recordOf(next))).ok;
}

export type DecisionOutcome =
  | { ok: true; approval: Approval }
  | { ok: false; reason: 'not_found' | 'not_pending' | 'expired' | 'self_approval'; approval?: Approval };

export interface Decision {
  decision: 'approve' | 'reject';
  by: string;
  via: DecisionChannel;
  reason?: string;
}

/**
 * Decides a pending approval: exactly one of racing decisions wins (compare-and-set on
 * `pending`). Through the API the principal that asked cannot approve its own call.
 */
export async function decideApproval(store: Store, id: string, decision: Decision, now = Date.now()): Promise<DecisionOutcome> {
  const approval = await loadApproval(store, id, now);
  if (!approval) return { ok: false, reason: 'not_found' };
  if (approval.state === 'expired') return { ok: false, reason: 'expired', approval };
  if (approval.state !== 'pending') return { ok: false, reason: 'not_pending', approval };
  if (decision.via === 'api' && decision.decision === 'approve' && decision.by === approval.requested_by) {
    return { ok: false, reason: 'self_approval', approval };
  }
  const decided: Approval = {
    ...approval,
    state: decision.decision === 'approve' ? 'approved' : 'rejected',
    decided_by: decision.by,
    decided_via: decision.via,
    decided_at: new Date(now).toISOString(),
    ...(decision.reason ? { decision_reason: decision.reason } : {}),
  };
  if (await advanceApproval(store, 'pending', decided)) return { ok: true, approval: decided };
  const current = await loadApproval(store, id, now);
  return { ok: false, reason: current?.state === 'expired' ? 'expired' : 'not_pending', approval: current };
}

/** Records where the approval request was posted (whatever state it reached meanwhile). */
export async function attachSlackMessage(store: Store, id: string, slack: { channel: string; ts: string }): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await loadApproval(store, id);
    if (!current) return;
    if (await advanceApproval(store, current.state, { ...current, slack })) return;
  }
}

/** Index pages one listing reads at most while filtering by state; then it returns what it found and a cursor. */
const MAX_PAGES_PER_LISTING = 20;

/**
 * A tenant's approvals, oldest first, optionally in one state; `after` pages on. Filtering by
 * state happens after reading, so a listing reads index pages until its page is full, but at
 * most MAX_PAGES_PER_LISTING: then it answers a short page with `next`, so no request scans a
 * tenant's whole history. `limit` must be a whole number of at least 1. `refresh` brings each
 * approval up to date before it is filtered (an interrupted approved call settles when seen).
 */
export async function listApprovals(store: Store, tenant: string, options: { state?: ApprovalState; after?: number; limit: number; refresh?: (approval: Approval) => Promise<Approval> }): Promise<{ approvals: Approval[]; next?: number }> {
  checkPageLimit(options.limit, 'listApprovals');
  const approvals: Approval[] = [];
  let after = options.after;
  for (let pages = 1; ; pages++) {
    const page = await store.listIndex(approvalIndex(tenant), { after_score: after, limit: options.limit });
    // A page's records are read together, not one round trip after another.
    const loaded = await Promise.all(page.map(async (entry) => {
      const approval = await loadApproval(store, entry.member);
      return approval && options.refresh ? options.refresh(approval) : approval;
    }));
    for (const [i, approval] of loaded.entries()) {
      if (approval && (!options.state || approval.state === options.state)) approvals.push(approval);
      after = page[i].score;
      if (approvals.length === options.limit) return { approvals, next: after };
    }
    if (page.length < options.limit) return { approvals };
    if (pages === MAX_PAGES_PER_LISTING) return { approvals, next: after };
  }
}
