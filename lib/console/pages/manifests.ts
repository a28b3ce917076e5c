import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import { AuditRecorder } from '../../audit/recorder.ts';
import { MANIFEST_VERSION } from '../../http/identifiers.ts';
import { diffManifests, oldToNew, type ManifestDiff, type ValueChange } from '../../registry/manifest/diff.ts';
import { activateManifest, listManifests, loadActivePointer, loadPublished, ManifestLifecycleError, rollbackManifest } from '../../registry/manifest/manifest-store.ts';
import type { ConsoleEnv } from '../env.ts';
import { csrfField, notice, renderPage } from '../layout.ts';
import type { ConsoleOptions } from '../options.ts';
import { requirePage } from '../scope-guard.ts';
import { shortTime } from '../time.ts';

type Versions = Awaited<ReturnType<typeof listManifests>>;
type Problem = { status: 400 | 404 | 409; message: string };

/** The tenant's manifest versions (admin): the active one marked, a diff of two, activate and roll back (each audited in `_manifests`). */
export function manifestPages(routes: Hono<ConsoleEnv>, options: ConsoleOptions) {
  const audit = new AuditRecorder(options.store);
  const guard = requirePage('manifests');

  routes.get('/manifests', guard, (c) => showManifests(c, options));

  routes.post('/manifests/rollback', guard, async (c) => {
    const tenant = c.get('principal').tenant;
    try {
      const moved = await rollbackManifest(options.store, audit, tenant, c.get('principal').principal);
      options.tenants.invalidate?.(tenant);
      return c.redirect(`/console/manifests?rolled_back=${encodeURIComponent(moved.to)}`, 303);
    } catch (error) {
      return showManifests(c, options, lifecycleProblem(error));
    }
  });

  routes.post('/manifests/:version/activate', guard, async (c) => {
    const version = c.req.param('version') ?? '';
    if (!MANIFEST_VERSION.pattern.test(version)) return showManifests(c, options, { status: 400, message: `a version is ${MANIFEST_VERSION.describe}` });
    const tenant = c.get('principal').tenant;
    try {
      const moved = await activateManifest(options.store, audit, tenant, version, c.get('principal').principal);
      options.tenants.invalidate?.(tenant);
      return c.redirect(`/console/manifests?activated=${encodeURIComponent(moved.to)}`, 303);
    } catch (error) {
      return showManifests(c, options, lifecycleProblem(error));
    }
  });
}

function lifecycleProblem(error: unknown): Problem {
  if (!(error instanceof ManifestLifecycleError)) throw error;
  return { status: error.code === 'conflict' ? 409 : 404, message: error.message };
}

async function showManifests(c: Context<ConsoleEnv>, options: ConsoleOptions, problem?: Problem) {
  const tenant = c.get('principal').tenant;
  const [versions, pointer] = await Promise.all([listManifests(options.store, tenant), loadActivePointer(options.store, tenant)]);
  const diff = await requestedDiff(c, options, versions);
  const canRollBack = (pointer?.history.length ?? 0) > 0;
  const body = html`${problem ? notice('bad', problem.message) : moveNotice(c)}
${versions.length === 0 ? html`<p class="muted">No versions published yet: publish one with <code>toolgate manifest publish</code>.</p>` : versionTable(c, versions)}
${canRollBack ? rollbackForm(c, pointer!.history.at(-1)!) : ''}
${versions.length >= 2 ? diffForm(c, versions) : ''}
${diff}`;
  return renderPage(c, { title: 'Manifest versions', current: 'manifests', status: problem?.status, body });
}

/** After a redirect: what moved (versions are checked against their pattern, then escaped as any text). */
function moveNotice(c: Context<ConsoleEnv>) {
  const activated = c.req.query('activated');
  const rolledBack = c.req.query('rolled_back');
  if (activated && MANIFEST_VERSION.pattern.test(activated)) return notice('ok', `Version ${activated} is now active.`);
  if (rolledBack && MANIFEST_VERSION.pattern.test(rolledBack)) return notice('ok', `Rolled back: version ${rolledBack} is active again.`);
  return '';
}

function versionTable(c: Context<ConsoleEnv>, versions: Versions) {
  const rows = [...versions].reverse().map((v) => html`<tr data-version="${v.version}"${v.active ? html` data-active="true"` : ''}>
<td data-label="Version"><strong>${v.version}</strong> ${v.active ? html`<span class="badge ok" data-role="active">active</span>` : ''}</td>
<td data-label="Published">${shortTime(v.published_at)} by ${v.published_by}</td>
<td data-label="Hash"><code title="${v.hash}">${v.hash.slice(0, 12)}</code></td>
<td>${v.active ? '' : html`<form class="inline" method="post" action="/console/manifests/${encodeURIComponent(v.version)}/activate">${csrfField(c)}<button type="submit" data-role="activate">Activate</button></form>`}</td>
</tr>`);
  return html`<div class="scroll"><table class="stack"><thead><tr><th>Version</th><th>Published</th><th>Hash</th><th></th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function rollbackForm(c: Context<ConsoleEnv>, previous: string) {
  return html`<form method="post" action="/console/manifests/rollback" class="actions">${csrfField(c)}<button type="submit" data-role="rollback">Roll back to version ${previous}</button></form>`;
}

function diffForm(c: Context<ConsoleEnv>, versions: Versions) {
  const from = c.req.query('from') ?? versions.at(-2)!.version;
  const to = c.req.query('to') ?? versions.at(-1)!.version;
  const select = (name: string, chosen: string) => html`<select name="${name}">${versions.map((v) => html`<option value="${v.version}"${v.version === chosen ? html` selected` : ''}>${v.version}</option>`)}</select>`;
  return html`<h2>Compare versions</h2><form method="get" action="/console/manifests" class="row"><label>From${select('from', from)}</label><label>To${select('to', to)}</label><button type="submit">Diff</button></form>`;
}

async function requestedDiff(c: Context<ConsoleEnv>, options: ConsoleOptions, versions: Versions) {
  const from = c.req.query('from');
  const to = c.req.query('to');
  if (!from || !to) return '';
  if (!MANIFEST_VERSION.pattern.test(from) || !MANIFEST_VERSION.pattern.test(to)) return notice('bad', `a version is ${MANIFEST_VERSION.describe}`);
  const tenant = c.get('principal').tenant;
  const [a, b] = await Promise.all([loadPublished(options.store, tenant, from), loadPublished(options.store, tenant, to)]);
  if (!a || !b || versions.length === 0) return notice('bad', `version ${!a ? from : to} is not published`);
  return diffView(from, to, diffManifests(a.manifest, b.manifest));
}

function diffView(from: string, to: string, diff: ManifestDiff) {
  const lines = [
    ...diff.added.map((name) => html`<li><code>+ ${name}</code> added</li>`),
    ...diff.removed.map((name) => html`<li><code>− ${name}</code> removed</li>`),
    ...diff.changed.map((t) => html`<li><code>~ ${t.name}</code> changed:${changeList(t.changes)}</li>`),
    ...(diff.setting_changes.length > 0 ? [html`<li>settings changed:${changeList(diff.setting_changes)}</li>`] : []),
  ];
  return html`<section class="card" data-role="diff"><h2>${from} → ${to}</h2>${lines.length === 0 ? html`<p class="muted">No differences.</p>` : html`<ul>${lines}</ul>`}</section>`;
}

/** Each changed value with its old → new value ("timeout_ms: 3000 → 5000"). */
function changeList(changes: ValueChange[]) {
  return html`<ul data-role="changes">${changes.map((change) => html`<li><code>${change.path}</code>: <code>${oldToNew(change)}</code></li>`)}</ul>`;
}
