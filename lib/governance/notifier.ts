import type { JsonObject } from '../registry/json.ts';
import type { Approval } from './approval.ts';

/** Tells humans about approvals (Slack); failures are the notifier's to log, never the caller's. */
export interface ApprovalNotifier {
  /** A call was parked: ask for a decision. Returns where the request was posted, if anywhere. */
  requested(approval: Approval, preview: JsonObject): Promise<{ channel: string; ts: string } | undefined>;
  /** The approval ended (decided, executed, expired): show the outcome; `preview` has sensitive fields masked. */
  settled(approval: Approval, preview?: JsonObject): Promise<void>;
}
