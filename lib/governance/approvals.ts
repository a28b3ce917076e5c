import { toHex } from '../crypto/sha256.ts';
import type { JsonObject } from '../registry/json.ts';
import { checkPageLimit } from '../stores/page-limit.ts';
import { StoreUnavailableError, type Store } from '../stores/store.ts';
import type { Approval, ApprovalState, ApproverDecision, DecisionChannel } from './approval.ts';
import { refusedName, samePerson, type Person } from './four-eyes.ts';
import { sameProof, storedProof, type GrantProof } from '../connections/grant-proof.ts';

/** Decided approvals stay readable this long after they expire. */
const RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
export const DEFAULT_APPROVAL_TTL_SECONDS = 3600;

export const approvalKey = (id: string) => `approval/${id}`;
export const approvalIndex = (tenant: string) => `approvals/${encodeURIComponent(tenant)}`;

export function newApprovalId(): string {
  return `apr_${toHex(crypto.getRandomValues(new Uint8Array(12)))}`;
}

/** The revision a record was written at, kept in its `owner` (approval records have no lease owner). */
const revisionOwner = (revision: number) => `rev-${revision}`;

function recordOf(approval: Approval) {
  return { state: approval.state, owner: revisionOwner(approval.revision ?? 0), expires_at: Date.parse(approval.expires_at) + RETENTION_MS, data: approval as unknown as JsonObject };
}

/** The approvals whose next deadline (reminder, then expiry) is at the score, across tenants; the sweep reads it. */
export const DUE_APPROVALS_INDEX = 'approvals-due';

/** When the sweep should next look at a pending approval: its reminder, if not sent yet, else its expiry. */
export function nextDueAt(approval: Approval): number {
  return approval.remind_at && !approval.reminded_at ? Date.parse(approval.remind_at) : Date.parse(approval.expires_at);
}

/** Stores a new pending approval and indexes it under its tenant and by when it is next due. */
export async function saveNewApproval(store: Store, approval: Approval): Promise<void> {
  const outcome = await store.claim(approvalKey(approval.id), recordOf({ ...approval, revision: 0 }));
  if (!outcome.claimed) throw new Error(`approval id ${approval.id} already exists`);
  // Microseconds plus a random tail: listing pages on scores, so two approvals must not share one.
  const score = Date.parse(approval.created_at) * 1000 + Math.floor(Math.random() * 1000);
  await store.addToIndex(approvalIndex(approval.tenant), approval.id, score);
  await store.addToIndex(DUE_APPROVALS_INDEX, approval.id, nextDueAt(approval));
}

/** How often a write retries after losing a compare-and-set to another writer (each loss means another writer progressed). */
const MAX_WRITE_ATTEMPTS = 50;

/**
 * Changes an approval by compare-and-set on its state and revision: `change` sees the approval as
 * stored and answers the next version, or undefined to leave it as it is. A lost race re-reads and
 * asks again. Returns the approval as written, or (`written: false`) as it stands.
 */
export async function updateApproval(store: Store, id: string, change: (current: Approval) => Approval | undefined, now = Date.now()): Promise<{ written: boolean; approval: Approval } | undefined> {
  for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
    const current = await loadApproval(store, id, now);
    if (!current) return undefined;
    const next = change(current);
    if (!next) return { written: false, approval: current };
    const written: Approval = { ...next, revision: (current.revision ?? 0) + 1 };
    // A record written before revisions existed has none: its state alone is compared, as before.
    const expect = { state: current.state, ...(current.revision === undefined ? {} : { owner: revisionOwner(current.revision) }) };
    if ((await store.transition(approvalKey(id), expect, recordOf(written))).ok) return { written: true, approval: written };
  }
  throw new StoreUnavailableError(store.name, new Error(`approval ${id} changed under ${MAX_WRITE_ATTEMPTS} writes in a row`));
}

/** The approval, with a pending one past its expiry turned into `expired` (once, atomically). */
export async function loadApproval(store: Store, id: string, now = Date.now()): Promise<Approval | undefined> {
  for (let attempt = 0; ; attempt++) {
    const record = await store.get(approvalKey(id));
    if (!record) return undefined;
    const approval = record.data as unknown as Approval;
    if (approval.state !== 'pending' || Date.parse(approval.expires_at) > now) return approval;
    const expired: Approval = { ...approval, state: 'expired', decided_at: new Date(now).toISOString(), revision: (approval.revision ?? 0) + 1 };
    const expect = { state: 'pending', ...(record.owner === undefined ? {} : { owner: record.owner }) };
    const outcome = await store.transition(approvalKey(id), expect, recordOf(expired));
    if (outcome.ok) return expired;
    // Another writer got there first (a decision, the sweep): read what it wrote, a few times at most.
    if (attempt === 3) return (outcome.current?.data as unknown as Approval | undefined) ?? approval;
  }
}

export type DecisionOutcome =
  | { ok: true; approval: Approval }
  | { ok: false; reason: 'not_found' | 'not_pending' | 'expired' | 'self_approval' | 'already_decided' | 'confusable_name' | 'not_requester'; approval?: Approval };

export interface Decision {
  decision: 'approve' | 'reject';
  /** The principal deciding (a Slack user id, or the principal it is mapped to). */
  by: string;
  /** The principals the decider's key was minted under (Principal.lineage). */
  lineage?: string[];
  via: DecisionChannel;
  reason?: string;
  /** The Slack user who clicked, when `by` is the principal that user is mapped to. */
  slack_user?: string;
  /** How the decider proved who it is (lib/connections/grant-proof.ts): a signed-in requester's confirm needs that same sign-in. */
  proof?: GrantProof | undefined;
}

/** How many distinct approvers an approval needs (a confirm: its requester, once). */
export const quorumOf = (approval: Approval) => (isConfirm(approval) ? 1 : approval.quorum ?? 1);

/** Whether only the requester may approve it (the policy's `confirm`). */
export const isConfirm = (approval: Pick<Approval, 'kind'>) => approval.kind === 'confirm';

/** Whether `decider` is, for this approval, the principal whose call it is (four-eyes' rules tell people apart). */
export function isRequester(approval: Approval, decider: Person): boolean {
  return samePerson(decider, { name: approval.requested_by, lineage: approval.requested_by_lineage }, approval.four_eyes);
}

/**
 * Whether the decider is the requester of a confirm approval: the same person by name, and, when
 * the call was made with a sign-in token, proved by that same sign-in. A key of a name the admin
 * chose ("Erin" for the signed-in "erin", or one minted before she connected) is not her: her
 * confirmed call runs with her own upstream tokens (the approval's proof).
 */
function confirmsAsRequester(approval: Approval, decision: Decision): boolean {
  if (!isRequester(approval, { name: decision.by, lineage: decision.lineage })) return false;
  const asked = storedProof(approval.requested_by_proof);
  return asked?.kind !== 'token' || (decision.proof !== undefined && sameProof(asked, decision.proof));
}

/** The approvals counted so far (a rejection ends the approval, so only approvals collect). */
export const approvalsOf = (approval: Approval) => (approval.decisions ?? []).filter((d) => d.decision === 'approve');

/**
 * Records one approver's decision on a pending approval. A rejection by anyone ends it; approvals
 * collect until `quorum` distinct approvers approved, then it is `approved`. The principal that
 * asked never counts (whatever the channel), and nobody counts twice. A confirm approval is the
 * other way round: only its requester approves it (once, which decides it), recorded with the
 * channel `confirm`; anyone else may only reject it. Every write is a
 * compare-and-set on the approval's revision, so racing decisions are all counted or refused,
 * never lost, and exactly one of them completes the quorum.
 */
export async function decideApproval(store: Store, id: string, decision: Decision, now = Date.now()): Promise<DecisionOutcome> {
  let refusal: Extract<DecisionOutcome, { ok: false }>['reason'] | undefined;
  const outcome = await updateApproval(store, id, (current) => {
    refusal = refusalOf(current, decision);
    return refusal ? undefined : withDecision(current, decision, now);
  }, now);
  if (!outcome) return { ok: false, reason: 'not_found' };
  if (refusal) return { ok: false, reason: refusal, approval: outcome.approval };
  return { ok: true, approval: outcome.approval };
}

function refusalOf(approval: Approval, decision: Decision): Extract<DecisionOutcome, { ok: false }>['reason'] | undefined {
  if (approval.state === 'expired') return 'expired';
  if (approval.state !== 'pending') return 'not_pending';
  if (decision.decision === 'reject') return undefined;
  const rules = approval.four_eyes;
  if (refusedName(decision.by, rules)) return 'confusable_name';
  if (isConfirm(approval)) return confirmsAsRequester(approval, decision) ? undefined : 'not_requester';
  // Compared as people, not strings: "Alice" and "alice " are one approver, and so are a key and
  // the keys it minted (four-eyes.ts).
  const decider: Person = { name: decision.by, lineage: decision.lineage };
  if (samePerson(decider, { name: approval.requested_by, lineage: approval.requested_by_lineage }, rules)) return 'self_approval';
  if (approvalsOf(approval).some((d) => samePerson(decider, { name: d.by, lineage: d.lineage }, rules))) return 'already_decided';
  return undefined;
}

function withDecision(approval: Approval, decision: Decision, now: number): Approval {
  const at = new Date(now).toISOString();
  // The requester deciding its own confirm approval says so, whatever surface it used.
  const via = isConfirm(approval) && confirmsAsRequester(approval, decision) ? 'confirm' : decision.via;
  const entry: ApproverDecision = {
    decision: decision.decision,
    by: decision.by,
    via,
    at,
    ...(decision.reason ? { reason: decision.reason } : {}),
    ...(decision.lineage?.length ? { lineage: decision.lineage } : {}),
    ...(decision.slack_user ? { slack_user: decision.slack_user } : {}),
  };
  const decisions = [...(approval.decisions ?? []), entry];
  const next: Approval = { ...approval, decisions };
  const state = decision.decision === 'reject' ? 'rejected' : approvalsOf(next).length >= quorumOf(approval) ? 'approved' : 'pending';
  if (state === 'pending') return next;
  return { ...next, state, decided_by: decision.by, decided_via: via, decided_at: at, ...(decision.reason ? { decision_reason: decision.reason } : {}) };
}

export type WithdrawalOutcome =
  | { ok: true; approval: Approval }
  | { ok: false; reason: 'not_found' | 'not_pending' | 'expired' | 'not_requester'; approval?: Approval };

/**
 * The requester takes its parked call back before anyone decided: pending → withdrawn, by
 * compare-and-set like a decision, so a withdrawal racing an approval ends exactly one way.
 * Only the principal whose call was parked may withdraw it; approvals already collected
 * (short of the quorum) do not stop it, a decided approval does.
 */
export async function withdrawApproval(store: Store, id: string, by: string, via: DecisionChannel, now = Date.now()): Promise<WithdrawalOutcome> {
  let refusal: Extract<WithdrawalOutcome, { ok: false }>['reason'] | undefined;
  const outcome = await updateApproval(store, id, (current) => {
    refusal = current.state === 'expired' ? 'expired' : current.state !== 'pending' ? 'not_pending' : current.requested_by !== by ? 'not_requester' : undefined;
    return refusal ? undefined : { ...current, state: 'withdrawn', decided_by: by, decided_via: via, decided_at: new Date(now).toISOString() };
  }, now);
  if (!outcome) return { ok: false, reason: 'not_found' };
  if (refusal) return { ok: false, reason: refusal, approval: outcome.approval };
  return { ok: true, approval: outcome.approval };
}

/** Records where the approval request was posted (whatever state it reached meanwhile). */
export async function attachSlackMessage(store: Store, id: string, slack: { channel: string; ts: string }): Promise<void> {
  await updateApproval(store, id, (current) => ({ ...current, slack }));
}

/** Index pages one listing reads at most while filtering by state; then it returns what it found and a cursor. */
const MAX_PAGES_PER_LISTING = 20;

/**
 * A tenant's approvals, oldest first, optionally in one state; `after` pages on. Filtering by
 * state happens after reading, so a listing reads index pages until its page is full, but at
 * most MAX_PAGES_PER_LISTING: then it answers a short page with `next`, so no request scans a
 * tenant's whole history. `limit` must be a whole number of at least 1. `refresh` brings each
 * approval up to date before it is filtered (an interrupted approved call settles when seen);
 * `match` filters further (one principal's confirmations).
 */
export async function listApprovals(store: Store, tenant: string, options: { state?: ApprovalState; match?: (approval: Approval) => boolean; after?: number; limit: number; refresh?: (approval: Approval) => Promise<Approval> }): Promise<{ approvals: Approval[]; next?: number }> {
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
      if (approval && (!options.state || approval.state === options.state) && (!options.match || options.match(approval))) approvals.push(approval);
      after = page[i].score;
      if (approvals.length === options.limit) return { approvals, next: after };
    }
    if (page.length < options.limit) return { approvals };
    if (pages === MAX_PAGES_PER_LISTING) return { approvals, next: after };
  }
}
