import type { Approval } from '../governance/approval.ts';
import { shownName } from '../governance/confusable-names.ts';
import { context, fieldsSection, section, type Block } from './block-kit.ts';
import { escapeMrkdwn, inlineCode, slackDate } from './mrkdwn.ts';

/** The blocks both approval messages share: who asked for what, and why a human must look. */
export function detailsFields(approval: Approval): Block {
  const fields = [
    `*Tool*\n${inlineCode(approval.tool)}`,
    `*Tier*\n${escapeMrkdwn(approval.tier)}`,
    `*Requested by*\n${escapeMrkdwn(shownName(approval.requested_by))}`,
    `*Tenant*\n${escapeMrkdwn(approval.tenant)}`,
    `*Thread*\n${inlineCode(approval.thread_id)}`,
    `*Call*\n${inlineCode(approval.call_id)}`,
  ];
  if (approval.manifest_version) fields.push(`*Manifest version*\n${escapeMrkdwn(approval.manifest_version)}`);
  if (approval.target) fields.push(`*Runs*\n${inlineCode(approval.target.summary)}`);
  return fieldsSection(fields);
}

export function policyReason(approval: Approval): Block {
  return section(`*Why review*\n${approval.reason ? escapeMrkdwn(approval.reason) : '_The policy gave no reason._'}`);
}

/** The approval id (what the API and the audit trail use) and when it stops waiting. */
export function approvalContext(approval: Approval): Block {
  return context([`Approval ${inlineCode(approval.id)} · requested ${slackDate(approval.created_at)} · expires ${slackDate(approval.expires_at)}`]);
}
