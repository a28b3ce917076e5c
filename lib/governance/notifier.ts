import type { Approval } from './approval.ts';

/** Tells humans about approvals (Slack); failures are the notifier's to log, never the caller's. */
export interface ApprovalNotifier {
  /** A call was parked: ask for a decision. Returns where the request was posted, if anywhere. */
  requested(approval: Approval, preview: Record<string, unknown>): Promise<{ channel: string; ts: string } | undefined>;
  /** The approval ended (decided, executed, expired): show the outcome. */
  settled(approval: Approval): Promise<void>;
}
