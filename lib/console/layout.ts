import type { Context } from 'hono';
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Principal } from '../governance/api-keys.ts';
import { openablePages, type PageId } from './access.ts';
import type { ConsoleEnv } from './env.ts';
import { COUNTDOWN_SCRIPT, STYLESHEET } from './style.ts';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export interface PageParts {
  title: string;
  /** The nav entry to mark as current. */
  current?: PageId;
  body: Html;
  status?: ContentfulStatusCode;
}

/** A whole page: head (viewport, inline stylesheet), the nav of what this principal may open, sign-out, body. */
export function renderPage(c: Context<ConsoleEnv>, parts: PageParts): Response | Promise<Response> {
  const nonce = c.get('secureHeadersNonce') ?? '';
  const principal = c.get('principal') as Principal | undefined;
  return c.html(
    html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${parts.title} · toolgate console</title>
<style nonce="${nonce}">${raw(STYLESHEET)}</style>
</head>
<body>
<header class="top">
<a class="brand" href="/console">toolgate console</a>
${principal ? navigation(principal, parts.current) : ''}
${principal ? whoAmI(c, principal) : ''}
</header>
<main>
<h1>${parts.title}</h1>
${parts.body}
</main>
<script nonce="${nonce}">${raw(COUNTDOWN_SCRIPT)}</script>
</body>
</html>`,
    parts.status ?? 200,
  );
}

function navigation(principal: Principal, current: PageId | undefined) {
  const links = openablePages(principal).map((page) => html`<a href="${page.path}"${page.id === current ? raw(' aria-current="page"') : ''}>${page.title}</a>`);
  return html`<nav aria-label="Console pages">${links}</nav>`;
}

function whoAmI(c: Context<ConsoleEnv>, principal: Principal) {
  return html`<div class="who"><span>Signed in as <strong>${principal.principal}</strong> · tenant <strong>${principal.tenant}</strong></span><a href="/console/confirm">Your confirmations</a>
<form class="inline" method="post" action="/console/sign-out">${csrfField(c)}<button class="link" type="submit">Sign out</button></form></div>`;
}

/** The session's form token as a hidden field: every POST form carries it. */
export function csrfField(c: Context<ConsoleEnv>) {
  return html`<input type="hidden" name="_csrf" value="${c.get('csrf')}">`;
}

export function notice(kind: 'ok' | 'bad', message: Html | string) {
  return html`<p class="notice ${kind}" role="${kind === 'bad' ? 'alert' : 'status'}">${message}</p>`;
}

/** A page that refuses or explains (no scope, bad form token, not found, store down). */
export function messagePage(c: Context<ConsoleEnv>, status: ContentfulStatusCode, title: string, message: string) {
  const back = (c.get('principal') as Principal | undefined) ? html`<p><a href="/console">Back to the console</a></p>` : html`<p><a href="/console/sign-in">Sign in</a></p>`;
  return renderPage(c, { title, status, body: html`${notice('bad', message)}${back}` });
}
