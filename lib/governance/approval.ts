import type { GrantProof } from '../connections/grant-proof.ts';
import type { ToolTier } from '../registry/definition.ts';
import type { ExecutorTarget } from '../registry/executor-target.ts';
import type { FourEyesRules } from './four-eyes.ts';
import type { JsonObject } from '../registry/json.ts';

/**
 * pending → approved | rejected | expired | withdrawn; approved → executed | interrupted.
 * `interrupted` is terminal: the gateway stopped while the approved call was starting or running,
 * and its result says whether it may have run (`indeterminate`) or never started. `withdrawn` is
 * the requester taking its call back before anyone decided (an MCP client cancelling the task the
 * parked call became): the call never runs.
 */
export type ApprovalState = 'pending' | 'approved' | 'rejected' | 'expired' | 'executed' | 'interrupted' | 'withdrawn';

/**
 * Where a decision (or a withdrawal: `mcp`) came from. `confirm`: the requester deciding its own
 * call of a confirm approval (the console's confirm page, or the API with its own credential): a
 * self-confirmation, never a second person's approval.
 */
export type DecisionChannel = 'api' | 'slack' | 'console' | 'mcp' | 'confirm';

/**
 * Who decides an approval: `review` (the default), people other than the requester (four-eyes,
 * a quorum); `confirm`, the requester alone (the policy's `confirm` action: a single-user agent's
 * user confirming their own call). Anyone who may decide approvals may still reject either.
 */
export type ApprovalKind = 'review' | 'confirm';

/** One approver's decision on an approval that needs several (four-eyes). */
export interface ApproverDecision {
  decision: 'approve' | 'reject';
  by: string;
  via: DecisionChannel;
  at: string;
  reason?: string;
  /** The principals the approver's key was minted under (four-eyes.ts). */
  lineage?: string[];
  /** The Slack user who clicked, when `by` is the principal that user is mapped to (`approvals.slack_principals`). */
  slack_user?: string;
}

/** A parked call waiting for (or having had) a human decision. Stored as `approval/<id>`. */
export interface Approval {
  id: string;
  tenant: string;
  thread_id: string;
  call_id: string;
  tool: string;
  tier: ToolTier;
  /** The store key of the parked call (its idempotency record), settled when the approval ends. */
  call_key: string;
  /** The arguments to run with once approved (the approval is bound to their hash). */
  arguments: JsonObject;
  args_hash: string;
  /** The API principal whose call was parked; it may not approve its own call (unless the approval is a confirm). */
  requested_by: string;
  /** Absent: `review`. */
  kind?: ApprovalKind;
  /** The principals the requester's key was minted under: they may not approve its call either (four-eyes.ts). */
  requested_by_lineage?: string[];
  /** How the requester proved who it was (lib/connections/grant-proof.ts): the approved call uses only connection grants made with that proof. */
  requested_by_proof?: GrantProof;
  /** How people are told apart for this approval, fixed when it was parked (absent: the defaults). */
  four_eyes?: FourEyesRules;
  /** Why the policy asked for a human. */
  reason: string;
  /** The manifest version the call was parked under: the approved call runs that version's definition of the tool. */
  manifest_version?: string;
  /**
   * SHA-256 of the tool's definition the call was parked under (its manifest entry with the
   * executor; registry/definition-binding.ts): the approved call runs that definition or nothing.
   * Absent on approvals stored before definitions were bound (they are bound by manifest_version alone).
   */
  definition_hash?: string;
  /** What will run, as reviewers are shown it (executor, endpoint; secrets masked). */
  target?: ExecutorTarget;
  /** The provider's native tool the call was made through (ToolExecutionContext.native_tool): the approved call's messages name it. */
  native_tool?: string;
  /** The text editor's command the native call was made with (lib/dispatch/call.ts NativeItem.command). */
  native_command?: string;
  /** The model's name for each argument of the native call (NativeItem.parameters): the approved call's messages use them. */
  native_parameters?: Record<string, string>;
  created_at: string;
  expires_at: string;
  state: ApprovalState;
  decided_by?: string;
  decided_via?: DecisionChannel;
  decided_at?: string;
  decision_reason?: string;
  /** How many distinct approvers must approve (default 1); the requester never counts. */
  quorum?: number;
  /** Every approver's decision so far, in order (the last one decided the approval once it ended). */
  decisions?: ApproverDecision[];
  /** The result of the approved call, once it ran or was interrupted (status and content as the model saw them). */
  result?: { status: string; is_error: boolean; content: string };
  /** The Slack message showing this approval, once posted. */
  slack?: { channel: string; ts: string };
  /** When a reminder is due (the tenant's `approvals.remind_before_seconds` before expiry), if one was asked for. */
  remind_at?: string;
  /** When the reminder went out (it goes out once). */
  reminded_at?: string;
  /** The escalation post (`approvals.escalation_channel`), once made. */
  escalation?: { channel: string; ts: string };
  /**
   * Bumped by every write; the stored record's `owner` holds it too, and every write is a
   * compare-and-set on it, so two racing decisions cannot overwrite one another.
   */
  revision?: number;
}
