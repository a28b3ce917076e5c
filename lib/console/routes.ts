import { Hono } from 'hono';
import { html } from 'hono/html';
import { requestBodyLimit } from '../http/body-limit.ts';
import { StoreUnavailableError } from '../stores/store.ts';
import { openablePages } from './access.ts';
import type { ConsoleEnv } from './env.ts';
import { messagePage, renderPage } from './layout.ts';
import type { ConsoleOptions } from './options.ts';
import { approvalPages } from './pages/approvals.ts';
import { auditPages } from './pages/audit.ts';
import { confirmPages } from './pages/confirm.ts';
import { keyPages } from './pages/keys.ts';
import { connectionPages } from './pages/connections.ts';
import { manifestPages } from './pages/manifests.ts';
import { signInPages, signOutRoute } from './pages/sign-in.ts';
import { consoleHeaders, consoleHostGuard, formGuard } from './security.ts';
import { requireSession } from './session.ts';

/** Forms are small: a reason, a key's scopes. */
const CONSOLE_BODY_LIMIT = 64 * 1024;

/**
 * The operator console, mounted at /console: server-rendered pages (hono/html), no script needed,
 * no external assets. Same store, tenants and Authenticator as the API, so what a key may do here
 * is what it may do there.
 */
export function consoleRoutes(options: ConsoleOptions) {
  const routes = new Hono<ConsoleEnv>();
  routes.use('*', consoleHeaders(), consoleHostGuard(options.origins), requestBodyLimit(CONSOLE_BODY_LIMIT));
  routes.use('/sign-in', formGuard({ token: false }));
  signInPages(routes, options);

  routes.use('*', requireSession(options.authenticator, (c, message) => messagePage(c, 503, 'Unavailable', `${message}; try again shortly`)), formGuard({ token: true }));
  signOutRoute(routes);
  routes.get('/', (c) => {
    // The landing page is one the principal's scopes open; Connections (open to all) is in the nav.
    const first = openablePages(c.get('principal')).find((page) => !(page.scopes as readonly string[]).includes('*'));
    if (first) return c.redirect(first.path, 303);
    return renderPage(c, { title: 'Nothing to show', body: html`<p class="notice bad">Your key holds none of the scopes the console's pages need (<code>approvals:read</code>, <code>approvals:decide</code>, <code>audit:read</code>, <code>admin</code>). Ask an admin for a key with one of them.</p><p>Calls your agents made that wait for your own confirmation are on <a href="/console/confirm">Your confirmations</a>.</p>` });
  });
  approvalPages(routes, options);
  confirmPages(routes, options);
  auditPages(routes, options);
  manifestPages(routes, options);
  keyPages(routes, options);
  connectionPages(routes, options);

  routes.all('*', (c) => messagePage(c, 404, 'Not found', `no console page at ${new URL(c.req.url).pathname}`));
  routes.onError((error, c) => {
    if (error instanceof StoreUnavailableError) return messagePage(c, 503, 'Unavailable', `${error.message}; try again shortly`);
    options.log?.('console.error', { path: new URL(c.req.url).pathname, error: error.message });
    return messagePage(c, 500, 'Something went wrong', 'the console could not show this page; the gateway logged the details');
  });
  return routes;
}
