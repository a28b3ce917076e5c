import type { Approval } from '../../governance/approval.ts';
import { DUE_APPROVALS_INDEX, loadApproval, nextDueAt, updateApproval } from '../../governance/approvals.ts';
import type { Store } from '../../stores/store.ts';
import { previewArguments } from './notice.ts';
import type { Logger } from '../events.ts';
import { settleExpired } from './parked-call.ts';
import type { TenantDirectory } from '../tenant-directory.ts';
import type { TenantRuntime } from '../tenant-runtime.ts';

/** Due approvals read per index page, and pages per sweep: a sweep's work is bounded (a Worker's cron has a CPU limit); the next one goes on. */
const PAGE = 50;
const MAX_PAGES = 10;

export interface SweepOutcome {
  /** Reminders sent (each approval's once). */
  reminded: number;
  /** Pending approvals found past their expiry: ended as `expired`, their calls settled and audited. */
  expired: number;
  /** Index entries of approvals already decided (or gone): dropped. */
  dropped: number;
  /** Approvals this sweep could not handle (store or tenant trouble); the next sweep tries again. */
  failed: number;
}

type Step = Exclude<keyof SweepOutcome, 'failed'> | 'rescheduled';

/**
 * Finds approvals whose reminder or expiry is due, without anyone reading them: sends the
 * reminder (and escalation) once, and ends expired ones (`expired`, audited, the call's record
 * settled so a poll or a re-sent call sees it, the Slack message updated). Every change is a
 * compare-and-set on the approval, so sweeps running at once in several places (a cron on each
 * region, a serve process beside a Worker) and decisions arriving meanwhile do everything once.
 * Runs on every runtime: `toolgate serve` on an interval, the Worker's cron, a scheduled Lambda, Deno.cron.
 */
export async function sweepApprovals(store: Store, tenants: TenantDirectory, options: { now?: () => number; log?: Logger } = {}): Promise<SweepOutcome> {
  const now = (options.now ?? Date.now)();
  const log = options.log ?? (() => {});
  const outcome: SweepOutcome = { reminded: 0, expired: 0, dropped: 0, failed: 0 };
  const seen = new Set<string>();
  for (let page = 0; page < MAX_PAGES; page++) {
    const entries = await store.listIndex(DUE_APPROVALS_INDEX, { limit: PAGE });
    const due = entries.filter((entry) => entry.score <= now && !seen.has(entry.member));
    for (const { member } of due) {
      seen.add(member);
      try {
        const step = await sweepOne(store, tenants, member, now, log);
        if (step !== 'rescheduled') outcome[step]++;
      } catch (error) {
        outcome.failed++;
        log('tools.approvals.sweep_failed', { level: 'error', approval_id: member, error: (error as Error).message });
      }
    }
    if (due.length === 0 || entries.length < PAGE) break;
  }
  if (outcome.reminded + outcome.expired + outcome.failed > 0) log('tools.approvals.swept', { ...outcome });
  return outcome;
}

async function sweepOne(store: Store, tenants: TenantDirectory, id: string, now: number, log: Logger): Promise<Step> {
  const approval = await loadApproval(store, id, now);
  if (!approval) return drop(store, id);
  const runtime = await tenants.runtime(approval.tenant);
  if (approval.state === 'expired') {
    if (runtime) await settleExpired(runtime.deps, approval);
    log('tools.approval.expired', { tenant: approval.tenant, approval_id: id, call_id: approval.call_id, settled_by: 'sweep' });
    await store.removeFromIndex(DUE_APPROVALS_INDEX, id);
    return 'expired';
  }
  if (approval.state !== 'pending') return drop(store, id);
  const reminderDue = approval.remind_at !== undefined && !approval.reminded_at && Date.parse(approval.remind_at) <= now;
  const step = reminderDue && (await remind(store, runtime, approval, now, log)) ? 'reminded' : 'rescheduled';
  const current = (await loadApproval(store, id, now)) ?? approval;
  await store.addToIndex(DUE_APPROVALS_INDEX, id, nextDueAt(current));
  return step;
}

async function drop(store: Store, id: string): Promise<Step> {
  await store.removeFromIndex(DUE_APPROVALS_INDEX, id);
  return 'dropped';
}

/** Marks the reminder sent (compare-and-set: one sweep wins), then posts it and records the escalation post. */
async function remind(store: Store, runtime: TenantRuntime | undefined, approval: Approval, now: number, log: Logger): Promise<boolean> {
  const marked = await updateApproval(store, approval.id, (current) => (current.state === 'pending' && !current.reminded_at ? { ...current, reminded_at: new Date(now).toISOString() } : undefined), now);
  if (!marked?.written) return false;
  log('tools.approval.reminded', { tenant: approval.tenant, approval_id: approval.id, expires_at: approval.expires_at });
  const notifier = runtime?.deps.approvals?.notifier;
  if (!runtime || !notifier?.reminded) return true;
  const posted = await notifier.reminded(marked.approval, await previewArguments(runtime.deps, marked.approval));
  const escalation = posted.escalation;
  if (escalation) await updateApproval(store, approval.id, (current) => ({ ...current, escalation }), now);
  return true;
}
