/**
 * The deployed-throughput module's reference, in a process of its own as `toolgate serve` is: a
 * bare Hono JSON route on @hono/node-server (read and parse a JSON body, answer JSON) on a free
 * loopback port, announced on stdout as serve announces its own.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.post('/bare', async (c) => {
  await c.req.json();
  return c.json({ ok: true });
});
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log(`bare route listening on http://127.0.0.1:${info.port}`));
