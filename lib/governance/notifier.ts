import type { JsonObject } from '../registry/json.ts';
import type { Approval } from './approval.ts';

/** Tells humans about approvals (Slack); failures are the notifier's to log, never the caller's. */
export interface ApprovalNotifier {
  /** A call was parked: ask for a decision. Returns where the request was posted, if anywhere. */
  requested(approval: Approval, preview: JsonObject): Promise<{ channel: string; ts: string } | undefined>;
  /** The approval ended (decided, executed, expired): show the outcome; `preview` has sensitive fields masked. */
  settled(approval: Approval, preview?: JsonObject): Promise<void>;
  /** An approval was counted but the quorum is not reached yet: show the progress. */
  progressed?(approval: Approval, preview: JsonObject): Promise<void>;
  /**
   * The approval's expiry is near and nobody finished deciding: remind (once), and escalate where
   * configured. Returns where the escalation was posted, if anywhere.
   */
  reminded?(approval: Approval, preview: JsonObject): Promise<{ escalation?: { channel: string; ts: string } }>;
}
