import { afterEach, describe, expect, it } from 'vitest';
import { verifySignedBody } from '../../lib/crypto/signed-request.ts';
import { ToolRouter } from '../../lib/dispatch/router.ts';
import { defineTool } from '../../lib/registry/definition.ts';
import { HttpToolExecutor } from '../../lib/registry/executors/http.ts';
import { closedPort, startTestServer, type TestServer } from '../helpers/http-server.ts';

const SECRET = 'tenant-signing-secret';
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function routerFor(url: string, extra: { timeout_ms?: number } = {}) {
  const definition = defineTool({ name: 'lookup', tier: 'read', input_schema: { type: 'object', properties: { id: { type: 'string' } } }, ...extra });
  const router = new ToolRouter();
  router.register(new HttpToolExecutor(definition, { url, secret: 'env:LOOKUP_SECRET', headers: { 'x-tenant-header': 'on' } }));
  return router;
}
const context = { thread_id: 'th-1', tenant: 'acme', env: { LOOKUP_SECRET: SECRET } };

describe('http executor', () => {
  it('reads at most 16 MiB of an answer: an endless one is an error result, and the gateway stops reading it', async () => {
    let sent = 0;
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    server = await startTestServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(1024 * 1024, 'x');
      res.on('close', closed);
      const pump = () => {
        while (!res.destroyed && sent < 1024 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    });
    const result = await routerFor(`${server.url}/lookup`).execute({ call_id: 'c-big', name: 'lookup', arguments: {} }, context);
    expect(result).toMatchObject({ status: 'error', content: 'Tool `lookup` answered more than 16 MiB (HTTP 200); toolgate reads no more of an answer.' });
    await connectionClosed;
    expect(sent).toBeLessThan(256 * 1024 * 1024);
  });

  it('refuses an answer whose declared length is over 16 MiB without reading it', async () => {
    server = await startTestServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(17 * 1024 * 1024) });
      res.write('{"a": 1');
    });
    const result = await routerFor(`${server.url}/lookup`).execute({ call_id: 'c-declared', name: 'lookup', arguments: {} }, context);
    expect(result).toMatchObject({ status: 'error', content: 'Tool `lookup` answered more than 16 MiB (HTTP 200); toolgate reads no more of an answer.' });
  });

  it('POSTs the call as JSON, signed so the receiver can verify it, and returns the JSON answer', async () => {
    server = await startTestServer(async (req, res) => {
      const check = await verifySignedBody(SECRET, req.body, req.headers['x-toolgate-timestamp'] as string, req.headers['x-toolgate-signature'] as string);
      res.writeHead(check.ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(check.ok ? { customer: 'Ada', id: JSON.parse(req.body).arguments.id } : { error: check.reason }));
    });
    const result = await routerFor(`${server.url}/lookup`).execute({ call_id: 'c-1', name: 'lookup', arguments: { id: '42' } }, context);
    expect(result).toMatchObject({ status: 'ok', content: '{"customer":"Ada","id":"42"}' });
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/lookup');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-tenant-header']).toBe('on');
    expect(request.headers['x-toolgate-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(JSON.parse(request.body)).toEqual({ tool: 'lookup', arguments: { id: '42' }, call_id: 'c-1', thread_id: 'th-1', tenant: 'acme' });
    // A receiver with another secret, or a tampered body, must not accept it.
    const ts = request.headers['x-toolgate-timestamp'] as string;
    const sig = request.headers['x-toolgate-signature'] as string;
    expect((await verifySignedBody('wrong', request.body, ts, sig)).ok).toBe(false);
    expect((await verifySignedBody(SECRET, request.body.replace('42', '43'), ts, sig)).ok).toBe(false);
    expect(await verifySignedBody(SECRET, request.body, ts, sig, { nowSeconds: Number(ts) + 301 })).toEqual({ ok: false, reason: 'stale timestamp' });
  });

  it('returns a text answer as text', async () => {
    server = await startTestServer((_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('plain words'); });
    expect((await routerFor(server.url).execute({ call_id: 'c', name: 'lookup', arguments: {} }, context)).content).toBe('plain words');
  });

  it('a non-2xx answer is an error result with the status', async () => {
    server = await startTestServer((_req, res) => { res.writeHead(500); res.end('database on fire'); });
    const result = await routerFor(server.url).execute({ call_id: 'c', name: 'lookup', arguments: {} }, context);
    expect(result).toMatchObject({ status: 'error', is_error: true, content: 'Tool `lookup` answered HTTP 500: database on fire', error: { details: { status: 500 } } });
  });

  it('times out with the per-tool timeout and aborts the request', async () => {
    let aborted = false;
    server = await startTestServer((_req, res) => { res.on('close', () => { aborted = true; }); });
    const result = await routerFor(server.url, { timeout_ms: 100 }).execute({ call_id: 'c', name: 'lookup', arguments: {} }, context);
    expect(result).toMatchObject({ status: 'timeout', content: 'Tool `lookup` timed out after 100 ms and was cancelled.' });
    await new Promise((r) => setTimeout(r, 50));
    expect(aborted).toBe(true);
  });

  it('a network failure is an error result with status 0', async () => {
    const port = await closedPort();
    const result = await routerFor(`http://127.0.0.1:${port}/x`).execute({ call_id: 'c', name: 'lookup', arguments: {} }, context);
    expect(result).toMatchObject({ status: 'error', content: `Could not reach tool \`lookup\` at http://127.0.0.1:${port}/x: ECONNREFUSED`, error: { details: { status: 0 } } });
  });

  it('a missing secret is an error result that says how to set it', async () => {
    server = await startTestServer((_req, res) => { res.end('unreachable'); });
    const result = await routerFor(server.url).execute({ call_id: 'c', name: 'lookup', arguments: {} }, { ...context, env: {} });
    expect(result.content).toBe('Tool `lookup` failed: secret LOOKUP_SECRET is not set: set the environment variable LOOKUP_SECRET (a secret binding on Workers, e.g. `wrangler secret put LOOKUP_SECRET`)');
    expect(server.requests).toHaveLength(0);
  });
});
