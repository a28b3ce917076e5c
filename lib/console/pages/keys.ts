import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { KeyLifecycleError, type ApiKeyInfo } from '../../governance/key-lifecycle.ts';
import { KEY_ID, KEY_NAME } from '../../http/identifiers.ts';
import type { ConsoleEnv } from '../env.ts';
import { csrfField, notice, renderPage, type Html } from '../layout.ts';
import type { ConsoleOptions } from '../options.ts';
import { requirePage } from '../scope-guard.ts';
import { shortDate, shortTime } from '../time.ts';

const PAGE_SIZE = 100;
const CURSOR = /^\d{1,16}$/;
const MAX_SCOPES = 50;
const DAY_SECONDS = 24 * 3600;
/** Choices for a new key's lifetime and a rotation's grace (the API takes any value in its limits). */
const LIFETIMES = [{ days: 30, label: '30 days' }, { days: 90, label: '90 days' }, { days: 365, label: '1 year' }, { days: 0, label: 'never' }];
const GRACES = [{ seconds: 0, label: 'no' }, { seconds: 3600, label: '1 hour' }, { seconds: DAY_SECONDS, label: '1 day' }, { seconds: 7 * DAY_SECONDS, label: '7 days' }];

type Problem = { status: ContentfulStatusCode; message: string };
type Shown = { heading: string; key: string; note: string };

/** The tenant's API keys (admin): list, create (the key shown once), revoke, rotate; each change audited in `_keys` by ApiKeyLifecycle. */
export function keyPages(routes: Hono<ConsoleEnv>, options: ConsoleOptions) {
  const keys = options.keyLifecycle;
  const guard = requirePage('keys');
  const by = (c: Context<ConsoleEnv>) => c.get('principal');
  const tenant = (c: Context<ConsoleEnv>) => c.get('principal').tenant;

  routes.get('/keys', guard, (c) => showKeys(c, options));

  routes.post('/keys', guard, async (c) => {
    const form = await c.req.parseBody();
    const request = newKeyRequest(form);
    if (!request.ok) return showKeys(c, options, { problem: { status: 400, message: request.message } });
    try {
      const { key, info } = await keys.create(tenant(c), request.value, by(c));
      return showKeys(c, options, { status: 201, shown: { heading: `New key for ${info.principal}`, key, note: `Copy it now: it is shown once, and toolgate keeps only its hash. Id ${info.id}, prefix ${info.prefix}…, expires ${info.expires_at ? shortTime(info.expires_at) : 'never'}.` } });
    } catch (error) {
      return showKeys(c, options, { problem: lifecycleProblem(error) });
    }
  });

  routes.post('/keys/:id/revoke', guard, async (c) => {
    const id = c.req.param('id') ?? '';
    if (!KEY_ID.pattern.test(id)) return showKeys(c, options, { problem: { status: 404, message: `no key ${id.slice(0, 40)} in your tenant` } });
    try {
      const info = await keys.revoke(tenant(c), id, by(c).principal);
      return c.redirect(`/console/keys?revoked=${encodeURIComponent(info.id)}`, 303);
    } catch (error) {
      return showKeys(c, options, { problem: lifecycleProblem(error) });
    }
  });

  routes.post('/keys/:id/rotate', guard, async (c) => {
    const id = c.req.param('id') ?? '';
    if (!KEY_ID.pattern.test(id)) return showKeys(c, options, { problem: { status: 404, message: `no key ${id.slice(0, 40)} in your tenant` } });
    const grace = Number((await c.req.parseBody()).grace_seconds);
    if (!GRACES.some((g) => g.seconds === grace)) return showKeys(c, options, { problem: { status: 400, message: 'choose a grace period from the list' } });
    try {
      const { key, info, previous } = await keys.rotate(tenant(c), id, by(c), { grace_seconds: grace });
      const until = previous.grace_until ? `until ${shortTime(previous.grace_until)}` : 'no longer';
      return showKeys(c, options, { status: 201, shown: { heading: `Replacement for ${previous.prefix}… (${info.principal})`, key, note: `Copy it now: it is shown once (id ${info.id}). The old key (${previous.id}) stays valid ${until}; roll the new one out before then.` } });
    } catch (error) {
      return showKeys(c, options, { problem: lifecycleProblem(error) });
    }
  });
}

function lifecycleProblem(error: unknown): Problem {
  if (!(error instanceof KeyLifecycleError)) throw error;
  return { status: KeyLifecycleError.STATUS[error.code], message: error.message };
}

/** The create form's fields → a request ApiKeyLifecycle.create takes, or what is wrong with them. */
function newKeyRequest(form: Record<string, unknown>): { ok: true; value: { principal: string; scopes: string[]; expires_at: string | null } } | { ok: false; message: string } {
  const principal = typeof form.principal === 'string' ? form.principal.trim() : '';
  if (!KEY_NAME.pattern.test(principal)) return { ok: false, message: `the principal must be ${KEY_NAME.describe}` };
  const scopes = (typeof form.scopes === 'string' ? form.scopes : '').split(/[\s,]+/).filter(Boolean);
  if (scopes.length > MAX_SCOPES || scopes.some((s) => !KEY_NAME.pattern.test(s))) return { ok: false, message: `scopes are at most ${MAX_SCOPES} names separated by spaces or commas, each ${KEY_NAME.describe}` };
  const days = Number(form.expires_in_days);
  if (!LIFETIMES.some((l) => l.days === days)) return { ok: false, message: 'choose when the key expires from the list' };
  return { ok: true, value: { principal, scopes: [...new Set(scopes)], expires_at: days === 0 ? null : new Date(Date.now() + days * DAY_SECONDS * 1000).toISOString() } };
}

async function showKeys(c: Context<ConsoleEnv>, options: ConsoleOptions, outcome: { status?: ContentfulStatusCode; problem?: Problem; shown?: Shown } = {}) {
  const after = c.req.query('after');
  const page = await options.keyLifecycle.list(c.get('principal').tenant, { after: after && CURSOR.test(after) ? after : undefined, limit: PAGE_SIZE });
  const next = page.next !== undefined ? html`<p><a href="/console/keys?after=${page.next}">Next page</a></p>` : '';
  const body = html`${outcome.problem ? notice('bad', outcome.problem.message) : revokedNotice(c)}
${outcome.shown ? shownKey(outcome.shown) : ''}
${page.keys.length === 0 ? html`<p class="muted">No keys listed yet.</p>` : keyTable(c, page.keys)}${next}
${createForm(c)}`;
  return renderPage(c, { title: 'API keys', current: 'keys', status: outcome.problem?.status ?? outcome.status, body });
}

function revokedNotice(c: Context<ConsoleEnv>) {
  const id = c.req.query('revoked');
  return id && KEY_ID.pattern.test(id) ? notice('ok', `Key ${id} is revoked: this gateway process refuses it at once, others within 60 seconds (their key cache).`) : '';
}

function shownKey(shown: Shown): Html {
  return html`<section class="card" data-role="new-key"><h2>${shown.heading}</h2><p class="secret" data-role="key">${shown.key}</p><p>${shown.note}</p></section>`;
}

function keyTable(c: Context<ConsoleEnv>, keys: ApiKeyInfo[]) {
  const rows = keys.map((key) => html`<tr data-key="${key.id}" data-prefix="${key.prefix}" data-state="${key.state}">
<td data-label="Key" class="nowrap"><code title="${key.id}">${key.prefix}…</code></td>
<td data-label="Principal">${key.principal}</td>
<td data-label="Scopes">${key.scopes.length > 0 ? key.scopes.join(' ') : html`<span class="muted">none</span>`}</td>
<td data-label="State">${stateBadge(key)}</td>
<td data-label="Created"><span title="${shortTime(key.created_at)}">${shortDate(key.created_at)}</span>${key.created_by ? html`<br><span class="muted small">by ${key.created_by}</span>` : ''}</td>
<td data-label="Expires" class="nowrap"><span title="${shortTime(key.expires_at)}">${key.expires_at ? shortDate(key.expires_at) : 'never'}</span></td>
<td data-label="Last used" class="nowrap"><span title="${shortTime(key.last_used_at)}">${key.last_used_at ? shortDate(key.last_used_at) : 'never'}</span></td>
<td>${keyActions(c, key)}</td>
</tr>`);
  return html`<div class="scroll"><table class="stack"><thead><tr><th>Key</th><th>Principal</th><th>Scopes</th><th>State</th><th>Created</th><th>Expires</th><th>Used</th><th></th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function stateBadge(key: ApiKeyInfo) {
  const kind = key.state === 'active' ? ' ok' : key.state === 'rotated' ? '' : ' bad';
  const detail = key.state === 'rotated' && key.grace_until ? `valid until ${shortTime(key.grace_until)}` : key.state === 'revoked' && key.revoked_by ? `by ${key.revoked_by}` : '';
  return html`<span class="badge${kind}" data-role="state">${key.state}</span>${detail ? html`<br><span class="muted small">${detail}</span>` : ''}`;
}

function keyActions(c: Context<ConsoleEnv>, key: ApiKeyInfo) {
  const revoke = key.state === 'revoked' ? '' : html`<form class="inline" method="post" action="/console/keys/${key.id}/revoke">${csrfField(c)}<button class="danger" type="submit" data-role="revoke">Revoke</button></form>`;
  // The choice is labelled in words above it, so the select shows only the period and stays readable in the narrow column.
  const graceId = `grace-${key.id}`;
  const rotate = key.state !== 'active' ? '' : html`<form method="post" action="/console/keys/${key.id}/rotate">${csrfField(c)}<label class="grace small muted" for="${graceId}">Old key keeps working</label><select id="${graceId}" name="grace_seconds">${GRACES.map((g) => html`<option value="${g.seconds}"${g.seconds === DAY_SECONDS ? html` selected` : ''}>${g.label}</option>`)}</select><button type="submit" data-role="rotate">Rotate</button></form>`;
  return html`<div class="key-actions">${revoke}${rotate}</div>`;
}

function createForm(c: Context<ConsoleEnv>) {
  return html`<h2>Create a key</h2>
<form method="post" action="/console/keys" class="card" data-role="create-key">${csrfField(c)}
<div class="row">
<label>Principal<input name="principal" required maxlength="100" autocomplete="off" placeholder="ci-agent"></label>
<label>Scopes<input name="scopes" maxlength="5000" autocomplete="off" placeholder="approvals:decide audit:read"></label>
<label>Expires<select name="expires_in_days">${LIFETIMES.map((l) => html`<option value="${l.days}"${l.days === 90 ? html` selected` : ''}>${l.label}</option>`)}</select></label>
</div>
<div class="actions"><button class="approve" type="submit">Create key</button></div>
</form>`;
}
