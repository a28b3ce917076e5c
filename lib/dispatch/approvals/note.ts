import type { Approval } from '../../governance/approval.ts';
import { approvalsOf } from '../../governance/approvals.ts';
import type { ToolResult } from '../call.ts';
import { approvalNaming } from '../call-naming.ts';

/** How much of one approver's reason the model sees, and of the whole note. */
export const NOTE_REASON_CHARS = 200;
export const NOTE_MAX_CHARS = 1000;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The approvers' reasons, for the model: a short note after the approved call's result, e.g.
 * `[Approved by alice: "only the staging table"; bob]`. Nothing when no approver gave a reason
 * (the result stays exactly the tool's). Each reason and the note are cut to a bounded length.
 * Approvers saw the tool a native call runs as: their reasons name it as the model knows it.
 */
export function approvalNote(approval: Approval): string | undefined {
  const approvals = approvalsOf(approval);
  if (!approvals.some((d) => d.reason)) return undefined;
  const { inText } = approvalNaming(approval);
  const parts = approvals.map((d) => (d.reason ? `${d.by}: ${JSON.stringify(clip(inText(d.reason.replace(/\s+/g, ' ').trim()), NOTE_REASON_CHARS))}` : d.by));
  return clip(`[Approved by ${parts.join('; ')}]`, NOTE_MAX_CHARS);
}

/** The result with the approvers' note appended to what the model reads (its text and, if any, its content parts). */
export function withApprovalNote(result: ToolResult, approval: Approval): ToolResult {
  const note = approvalNote(approval);
  if (!note) return result;
  return {
    ...result,
    content: result.content === '' ? note : `${result.content}\n\n${note}`,
    ...(result.content_parts ? { content_parts: [...result.content_parts, { type: 'text' as const, text: note }] } : {}),
  };
}
