import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Approval } from '../../governance/approval.ts';
import { approvalsOf, isConfirm, isRequester, quorumOf } from '../../governance/approvals.ts';
import { isConfusableName, shownName } from '../../governance/confusable-names.ts';
import type { JsonObject } from '../../registry/json.ts';
import type { ConsoleEnv } from '../env.ts';
import { csrfField } from '../layout.ts';
import { remainingTime, shortTime } from '../time.ts';

/** Characters of pretty-printed arguments a card shows before cutting (a reviewer reads, not scrolls, them). */
const MAX_ARGUMENT_CHARS = 4000;
export const MAX_REASON_CHARS = 2000;

export interface CardOptions {
  /** The arguments as shown: sensitive fields masked; undefined when they cannot be masked (hidden). */
  shownArguments: JsonObject | undefined;
  mayDecide: boolean;
  mayReadAudit: boolean;
  now: number;
  /** Link the title to the approval's own page (on the list). */
  linked: boolean;
}

/** One approval: what was asked, by whom, until when, how far its quorum got, and (while pending) the decision form. */
export function approvalCard(c: Context<ConsoleEnv>, approval: Approval, options: CardOptions) {
  const tool = html`<code>${approval.tool}</code>`;
  const title = html`${options.linked ? html`<a href="/console/approvals/${approval.id}">${tool}</a>` : tool} <span class="badge">${approval.tier}</span>${isConfirm(approval) ? html` <span class="badge" data-role="kind">confirm</span>` : ''} ${stateBadge(approval)}`;
  const thread = options.mayReadAudit ? html`<a href="/console/audit?thread_id=${encodeURIComponent(approval.thread_id)}"><code>${approval.thread_id}</code></a>` : html`<code>${approval.thread_id}</code>`;
  return html`<article class="card" id="${approval.id}" data-approval="${approval.id}" data-state="${approval.state}">
<h2>${title}</h2>
<dl>
<dt>Requested by</dt><dd>${person(approval.requested_by)}</dd>
<dt>${isConfirm(approval) ? 'Why confirm' : 'Why review'}</dt><dd>${approval.reason || 'the policy gave no reason'}</dd>
<dt>Thread</dt><dd>${thread}</dd>
<dt>Call</dt><dd><code>${approval.call_id}</code></dd>
<dt>Requested</dt><dd>${shortTime(approval.created_at)}</dd>
${approval.state === 'pending' ? html`<dt>Expires</dt><dd><time data-countdown datetime="${approval.expires_at}" title="${shortTime(approval.expires_at)}">${remainingTime(approval.expires_at, options.now)}</time></dd>` : ''}
${approval.manifest_version ? html`<dt>Manifest version</dt><dd>${approval.manifest_version}</dd>` : ''}
${whatRuns(approval)}
<dt>Approval</dt><dd><code>${approval.id}</code></dd>
</dl>
${argumentsBlock(options.shownArguments)}
${quorumProgress(approval)}
${outcome(approval)}
${approval.state === 'pending' && options.mayDecide ? decisionForm(c, approval) : ''}
</article>`;
}

/** What an approval runs: the executor target and the definition's hash (absent on approvals parked before they were recorded). */
function whatRuns(approval: Approval) {
  if (!approval.target) return '';
  const hash = approval.definition_hash ? html` <span class="muted" title="${approval.definition_hash}">definition ${approval.definition_hash.slice(0, 12)}</span>` : '';
  return html`<dt>Runs</dt><dd data-role="target"><code>${approval.target.summary}</code>${hash}</dd>`;
}

/** A principal's name, marked when it could pass for another (mixed scripts, invisible characters: confusable-names.ts). */
function person(name: string) {
  return isConfusableName(name) ? html`<mark data-role="confusable">${shownName(name)}</mark>` : name;
}

function stateBadge(approval: Approval) {
  const kind = approval.state === 'executed' || approval.state === 'approved' ? ' ok' : approval.state === 'pending' ? '' : ' bad';
  return html`<span class="badge${kind}" data-role="state">${approval.state}</span>`;
}

function argumentsBlock(args: JsonObject | undefined) {
  if (args === undefined) return html`<p class="muted">Arguments hidden: neither the active manifest nor the version the call was parked under defines the tool, so its sensitive fields are unknown (the call cannot run as approved).</p>`;
  const json = JSON.stringify(args, null, 2);
  const cut = json.length > MAX_ARGUMENT_CHARS;
  return html`<pre aria-label="Arguments">${cut ? json.slice(0, MAX_ARGUMENT_CHARS) : json}</pre>${cut ? html`<p class="muted">Arguments cut: the first ${MAX_ARGUMENT_CHARS.toLocaleString('en-US')} of ${json.length.toLocaleString('en-US')} characters are shown.</p>` : ''}`;
}

/** "Approvals: 1 of 2 (alice)": shown when more than one approver is needed or someone decided. */
function quorumProgress(approval: Approval) {
  const quorum = quorumOf(approval);
  const decisions = approval.decisions ?? [];
  if (quorum <= 1 && decisions.length === 0) return '';
  const approvers = approvalsOf(approval).map((d, i) => html`${i > 0 ? ', ' : ''}${person(d.by)}`);
  const list = decisions.map((d) => html`<li>${person(d.by)} ${d.decision === 'approve' ? 'approved' : 'rejected'} via ${d.via} at ${shortTime(d.at)}${d.reason ? html`: “${d.reason}”` : ''}</li>`);
  return html`<p data-role="quorum"><strong>Approvals: ${approvers.length} of ${quorum}</strong>${approvers.length > 0 ? html` (${approvers})` : ''}</p>${list.length > 0 ? html`<ul class="muted">${list}</ul>` : ''}`;
}

/** For a decided approval: who decided, why, and what the call returned (as the model saw it). */
function outcome(approval: Approval) {
  if (approval.state === 'pending') return '';
  const decided = approval.decided_by ? html`<dt>Decided by</dt><dd>${person(approval.decided_by)}${approval.decided_via ? ` via ${approval.decided_via}` : ''} at ${shortTime(approval.decided_at)}</dd>` : '';
  const reason = approval.decision_reason ? html`<dt>Reason</dt><dd data-role="decision-reason">${approval.decision_reason}</dd>` : '';
  const result = approval.result ? html`<dt>Result</dt><dd><span class="badge">${approval.result.status}</span><pre data-role="result">${approval.result.content}</pre></dd>` : '';
  return html`<dl>${decided}${reason}${result}</dl>`;
}

function decisionForm(c: Context<ConsoleEnv>, approval: Approval) {
  if (isConfirm(approval)) return confirmApprovalForm(c, approval);
  // Four-eyes refuses the requester's approval (and a key it minted, or that minted it): say so
  // up front instead of offering a button that can only be refused.
  const { principal, lineage } = c.get('principal');
  if (isRequester(approval, { name: principal, lineage })) return html`<p class="muted" data-role="waiting">You requested this call: waiting for another approver.</p>`;
  const mine = approvalsOf(approval).some((d) => d.by === c.get('principal').principal);
  return html`<form method="post" action="/console/approvals/${approval.id}" data-role="decide">
${csrfField(c)}
<label>Reason (optional; the model sees it)<textarea name="reason" rows="2" maxlength="${MAX_REASON_CHARS}"></textarea></label>
<div class="actions">
${mine ? html`<span class="muted">You approved this call; it waits for other approvers.</span>` : html`<button class="approve" type="submit" name="decision" value="approve">Approve</button>`}
<button class="reject" type="submit" name="decision" value="reject">Reject</button>
</div>
</form>`;
}


/**
 * A confirm approval on the approvals pages: its requester confirms it on its own page (confirm.ts);
 * anyone else who decides approvals may only reject it.
 */
function confirmApprovalForm(c: Context<ConsoleEnv>, approval: Approval) {
  const { principal, lineage } = c.get('principal');
  if (isRequester(approval, { name: principal, lineage })) return html`<p data-role="confirm-link">This call waits for your own confirmation: <a href="/console/confirm/${approval.id}">confirm or decline it</a>.</p>`;
  return html`<form method="post" action="/console/approvals/${approval.id}" data-role="decide">
${csrfField(c)}
<p class="muted">Only its requester can confirm this call (the policy says confirm); you may reject it.</p>
<label>Reason (optional; the model sees it)<textarea name="reason" rows="2" maxlength="${MAX_REASON_CHARS}"></textarea></label>
<div class="actions"><button class="reject" type="submit" name="decision" value="reject">Reject</button></div>
</form>`;
}
