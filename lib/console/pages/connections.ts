import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import type { GrantInfo } from '../../connections/grant-store.ts';
import type { ConsoleEnv } from '../env.ts';
import { csrfField, messagePage, notice, renderPage } from '../layout.ts';
import type { ConsoleOptions } from '../options.ts';
import { requirePage } from '../scope-guard.ts';
import { shortDate, shortTime } from '../time.ts';

/**
 * Connections (every signed-in principal): the grants the principal gave tools to act as it, and
 * for an admin every principal's of the tenant (who holds which, never a token); revoke one (also
 * at the provider). The grant code loads on first use.
 */
export function connectionPages(routes: Hono<ConsoleEnv>, options: ConsoleOptions) {
  const guard = requirePage('connections');
  const services = options.connections;
  routes.get('/connections', guard, async (c) => {
    if (!services) return messagePage(c, 404, 'No connections', 'this gateway holds no connection grants (the operator sets TOOLGATE_CONNECTION_KEYS)');
    const grants = await (await import('../../connections/revoke.ts')).visibleGrants(services, c.get('principal'), true);
    return showConnections(c, grants);
  });

  routes.post('/connections/revoke', guard, async (c) => {
    if (!services) return messagePage(c, 404, 'No connections', 'this gateway holds no connection grants');
    const form = await c.req.parseBody();
    const viewer = c.get('principal');
    const owner = { tenant: viewer.tenant, principal: String(form.principal ?? ''), connection: String(form.connection ?? '') };
    const { mayRevoke, revokeGrant } = await import('../../connections/revoke.ts');
    const outcome = mayRevoke(viewer, owner) ? await revokeGrant(services, owner, viewer.principal) : { revoked: false };
    if (!outcome.revoked) return messagePage(c, 404, 'Not found', `no grant of "${owner.connection.slice(0, 64)}" for ${owner.principal.slice(0, 100)}`);
    return c.redirect(`/console/connections?revoked=${encodeURIComponent(owner.connection)}`, 303);
  });
}

function showConnections(c: Context<ConsoleEnv>, grants: GrantInfo[]) {
  const revoked = c.req.query('revoked');
  const rows = grants.map((grant) => html`<tr data-principal="${grant.principal}" data-connection="${grant.connection}">
<td data-label="Connection">${grant.connection}</td>
<td data-label="Principal">${grant.principal}</td>
<td data-label="Granted"><span title="${shortTime(grant.granted_at)}">${shortDate(grant.granted_at)}</span></td>
<td data-label="Scope">${grant.scope ?? html`<span class="muted">—</span>`}</td>
<td data-label="Renews">${grant.refreshable ? 'yes' : 'no'}</td>
<td><form class="inline" method="post" action="/console/connections/revoke">${csrfField(c)}<input type="hidden" name="principal" value="${grant.principal}"><input type="hidden" name="connection" value="${grant.connection}"><button class="danger" type="submit" data-role="revoke">Revoke</button></form></td>
</tr>`);
  const body = html`${revoked ? notice('ok', `The grant of "${revoked.slice(0, 64)}" is revoked: the next call through it asks to connect again.`) : ''}
<p class="muted">Tools that act as a user send that user's own token of a connection. Revoking forgets the grant here and revokes it at the provider where it can.</p>
${grants.length === 0 ? html`<p class="muted" data-role="none">No connections.</p>` : html`<div class="scroll"><table class="stack"><thead><tr><th>Connection</th><th>Principal</th><th>Granted</th><th>Scope</th><th>Renews</th><th></th></tr></thead><tbody>${rows}</tbody></table></div>`}`;
  return renderPage(c, { title: 'Connections', current: 'connections', body });
}
