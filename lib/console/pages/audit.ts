import type { Hono } from 'hono';
import { html } from 'hono/html';
import { verifyChain, type ChainCheck } from '../../audit/verify.ts';
import { THREAD_ID } from '../../http/identifiers.ts';
import type { StoredEnvelope, Store } from '../../stores/store.ts';
import type { ConsoleEnv } from '../env.ts';
import { notice, renderPage } from '../layout.ts';
import type { ConsoleOptions } from '../options.ts';
import { requirePage } from '../scope-guard.ts';
import { shortTime } from '../time.ts';

const READ_PAGE = 500;
/** Envelopes read (and verified) per view at most: a page answers in bounded time however long the thread. */
export const MAX_VERIFIED = 20_000;
const MAX_SHOWN = 1_000;
/** Characters of an envelope's data a row shows (an output alone may be 100,000): the page stays bounded. */
const MAX_DATA_CHARS = 2_000;

/** A thread's audit trail (audit:read), its hash chain verified here on every view. */
export function auditPages(routes: Hono<ConsoleEnv>, options: ConsoleOptions) {
  routes.get('/audit', requirePage('audit'), async (c) => {
    const threadId = c.req.query('thread_id')?.trim();
    if (!threadId) return renderPage(c, { title: 'Audit trail', current: 'audit', body: threadForm('') });
    if (!THREAD_ID.pattern.test(threadId)) {
      return renderPage(c, { title: 'Audit trail', current: 'audit', status: 400, body: html`${notice('bad', `a thread id is ${THREAD_ID.describe}`)}${threadForm('')}` });
    }
    const shown: StoredEnvelope[] = [];
    const thread = { complete: true };
    const check = await verifyChain(keepFirst(readThread(options.store, c.get('principal').tenant, threadId, thread), shown));
    return renderPage(c, { title: 'Audit trail', current: 'audit', body: html`${threadForm(threadId)}${chainNotice(check, thread.complete)}${envelopeTable(shown, check)}` });
  });
}

/**
 * The thread's envelopes in order, up to MAX_VERIFIED, a page at a time (a long thread of large
 * envelopes is never held whole); `thread.complete` becomes false when it has more.
 */
export async function* readThread(store: Store, tenant: string, thread_id: string, thread: { complete: boolean }): AsyncGenerator<StoredEnvelope> {
  let after_seq: number | undefined;
  let read = 0;
  while (read < MAX_VERIFIED) {
    const page = await store.listAudit({ tenant, thread_id }, { after_seq, limit: READ_PAGE });
    read += page.envelopes.length;
    yield* page.envelopes;
    if (page.next_after_seq === undefined) return;
    after_seq = page.next_after_seq;
  }
  thread.complete = false;
}

/** Passes every envelope on to the chain check and keeps the first MAX_SHOWN (those the page shows). */
async function* keepFirst(envelopes: AsyncIterable<StoredEnvelope>, shown: StoredEnvelope[]): AsyncGenerator<StoredEnvelope> {
  for await (const envelope of envelopes) {
    if (shown.length < MAX_SHOWN) shown.push(envelope);
    yield envelope;
  }
}

function threadForm(threadId: string) {
  return html`<form method="get" action="/console/audit" class="row">
<label>Thread id<input name="thread_id" value="${threadId}" required maxlength="200" autocomplete="off"></label>
<button type="submit">Show</button>
</form>
<p class="muted">Lifecycle threads: <a href="/console/audit?thread_id=_manifests">_manifests</a> · <a href="/console/audit?thread_id=_keys">_keys</a></p>`;
}

function chainNotice(check: ChainCheck, complete: boolean) {
  if (check.count === 0) return notice('ok', 'No envelopes in this thread (or it is not in your tenant).');
  if (!check.ok) {
    return html`<p class="notice bad" role="alert" data-role="chain" data-chain="broken"><strong>Chain broken</strong> at seq ${check.broken_at} (envelope <code>${check.envelope_id}</code>): ${check.reason}.</p>`;
  }
  const scope = complete ? `all ${check.count} envelopes` : `the first ${check.count} envelopes (the thread has more; use the CLI's \`toolgate audit verify\` for all)`;
  return html`<p class="notice ok" role="status" data-role="chain" data-chain="intact"><strong>Chain intact</strong>: ${scope} verified, head <code>${(check.head ?? '').slice(0, 16)}…</code></p>`;
}

function envelopeTable(envelopes: StoredEnvelope[], check: ChainCheck) {
  if (envelopes.length === 0) return '';
  const broken = check.ok ? undefined : check.broken_at;
  const rows = envelopes.map((e) => envelopeRow(e, e.seq === broken));
  const more = check.count > envelopes.length ? html`<p class="muted">The first ${envelopes.length} of ${check.count} envelopes are shown; the chain check covers all of them.</p>` : '';
  return html`<div class="scroll"><table class="stack"><thead><tr><th>Seq</th><th>Time</th><th>Type</th><th>Tool · call</th><th>Principal</th><th>Hash</th></tr></thead><tbody>${rows}</tbody></table></div>${more}`;
}

function envelopeRow(envelope: StoredEnvelope, broken: boolean) {
  const field = (name: string) => (typeof envelope[name] === 'string' ? (envelope[name] as string) : '');
  const data = envelope.data === undefined ? '' : cutData(JSON.stringify(envelope.data, null, 2));
  return html`<tr${broken ? html` class="broken" data-role="broken-row"` : ''} data-seq="${envelope.seq}">
<td data-label="Seq">${envelope.seq}</td>
<td data-label="Time">${shortTime(field('time'))}</td>
<td data-label="Type"><code>${field('type')}</code>${data ? html`<details><summary>data</summary><pre>${data}</pre></details>` : ''}</td>
<td data-label="Tool · call">${field('tool') || '—'}${field('call_id') ? html` · <code>${field('call_id')}</code>` : ''}</td>
<td data-label="Principal">${field('principal')}</td>
<td data-label="Hash"><code title="${envelope.hash}">${envelope.hash.slice(0, 12)}</code></td>
</tr>`;
}


function cutData(json: string): string {
  if (json.length <= MAX_DATA_CHARS) return json;
  return `${json.slice(0, MAX_DATA_CHARS)}\n… data cut: the first ${MAX_DATA_CHARS.toLocaleString('en-US')} of ${json.length.toLocaleString('en-US')} characters are shown (GET /v1/audit returns the whole envelope)`;
}
