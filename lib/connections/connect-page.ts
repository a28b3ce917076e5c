import type { Context } from 'hono';
import { html } from 'hono/html';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * The connect flow's one plain page (done, or why not): no script, no style, nothing loaded from
 * elsewhere, not framable, never cached, and no Referer leaves it (its URL may carry a code).
 */
export function connectPage(c: Context, status: ContentfulStatusCode, title: string, message: string): Response | Promise<Response> {
  c.header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Frame-Options', 'DENY');
  c.header('X-Content-Type-Options', 'nosniff');
  return c.html(
    html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${title} · toolgate</title></head>
<body>
<h1>${title}</h1>
<p>${message}</p>
</body>
</html>`,
    status,
  );
}
