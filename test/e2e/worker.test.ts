import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogManifest } from '../../bench/tool-search-corpus.ts';
import { REPO_ROOT, runNode } from '../helpers/processes.ts';

/**
 * The Worker as wrangler builds it, running inside workerd: proves lib/ needs nothing Node-only
 * and that validation works where code generation is refused.
 */
describe('Cloudflare Worker in workerd', () => {
  // Inside the repo: workerd refuses source maps that point above the script's folder.
  mkdirSync(join(REPO_ROOT, '.wrangler'), { recursive: true });
  const outDir = mkdtempSync(join(REPO_ROOT, '.wrangler', 'test-build-'));
  let mf: Miniflare;

  beforeAll(async () => {
    const wrangler = join(REPO_ROOT, 'node_modules/wrangler/bin/wrangler.js');
    const build = await runNode([wrangler, 'deploy', '--dry-run', '--outdir', outDir], { env: { WRANGLER_SEND_METRICS: 'false', CI: 'true' } });
    if (build.code !== 0) throw new Error(`wrangler build failed:\n${build.stdout}\n${build.stderr}`);
    mf = new Miniflare({ modules: true, scriptPath: join(outDir, 'worker.js'), compatibilityDate: '2026-04-01', bindings: { TOOLGATE_DEMO_KEY: 'worker-test-key', TOOLGATE_DEMO_ADMIN_KEY: 'worker-admin-key', TOOLGATE_STORE: 'memory', TOOLGATE_TENANT_SECRETS: 'demo:DEMO_EXEC_SECRET' } });
  }, 120_000);
  afterAll(async () => {
    await mf?.dispose();
    rmSync(outDir, { recursive: true, force: true });
  });

  it('refuses to run without a store, or on SQLite, with a clear message', async () => {
    for (const [bindings, message] of [
      [{}, 'TOOLGATE_STORE is not set: on Cloudflare Workers set it to upstash or dynamodb'],
      [{ TOOLGATE_STORE: 'sqlite' }, 'TOOLGATE_STORE=sqlite needs a local file, which Cloudflare Workers does not have: set TOOLGATE_STORE to upstash or dynamodb'],
    ] as const) {
      const bare = new Miniflare({ modules: true, scriptPath: join(outDir, 'worker.js'), compatibilityDate: '2026-04-01', bindings });
      const response = await bare.dispatchFetch('http://worker/healthz');
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain(message);
      await bare.dispose();
    }
  });

  it('runs the approvals sweep from the cron trigger wrangler.toml declares', async () => {
    expect(readFileSync(join(REPO_ROOT, 'wrangler.toml'), 'utf8')).toMatch(/^\[triggers\]\ncrons = \["\* \* \* \* \*"\]$/m);
    // Miniflare's Fetcher type leaves out scheduled(), which workerd's Fetcher has.
    const worker = (await mf.getWorker()) as unknown as { scheduled(options: { cron: string }): Promise<{ outcome: string }> };
    expect(await worker.scheduled({ cron: '* * * * *' })).toMatchObject({ outcome: 'ok' });
  });

  it("leaves nothing of its start-up warm-up (lib/http/warm-start.ts) that a request can reach", async () => {
    // The warm-up validates with a named engine: the gateway's own still picks the eval-free one inside requests.
    expect(await (await mf.dispatchFetch('http://worker/healthz')).json()).toMatchObject({ status: 'ok', validator: 'cfworker' });
    // Its key and tenant lived in a throwaway store: neither exists for the gateway.
    const warmKey = await mf.dispatchFetch('http://worker/v1/tools', { headers: { authorization: 'Bearer tg_warm_up_0000000000000000000000000000' } });
    expect(warmKey.status).toBe(401);
    const warmTenant = await mf.dispatchFetch('http://worker/v1/dispatch', {
      method: 'POST',
      headers: { authorization: 'Bearer worker-test-key', 'content-type': 'application/json' },
      body: JSON.stringify({ tenant: 'toolgate-warm-up', thread_id: 'warm-up', calls: [{ call_id: 'x', name: 'echo', arguments: { text: 'x' } }] }),
    });
    expect(warmTenant.status).toBe(404);
  });

  it('builds a bundle with wrangler', () => {
    expect(statSync(join(outDir, 'worker.js')).size).toBeGreaterThan(1000);
  });

  it('bundles no MCP SDK and no zod (toolgate speaks MCP itself, both ways) and stays within 300 KiB gzipped', () => {
    const sources = (JSON.parse(readFileSync(join(outDir, 'worker.js.map'), 'utf8')) as { sources: string[] }).sources;
    expect(sources.filter((source) => /node_modules\/(@modelcontextprotocol|zod|zod-to-json-schema)\//.test(source))).toEqual([]);
    expect(gzipSync(readFileSync(join(outDir, 'worker.js')), { level: 9 }).length).toBeLessThanOrEqual(300 * 1024);
  });

  it('dispatches echo and validates with the eval-free engine', async () => {
    const response = await mf.dispatchFetch('http://worker/v1/dispatch', {
      method: 'POST',
      headers: { authorization: 'Bearer worker-test-key', 'content-type': 'application/json' },
      body: JSON.stringify({ thread_id: 'w1', calls: [{ call_id: 'a', name: 'echo', arguments: { text: 'from workerd' } }, { call_id: 'b', name: 'echo', arguments: { text: 7 } }] }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: Array<{ status: string; content: string }> };
    expect(body.results[0]).toMatchObject({ status: 'ok', content: 'from workerd' });
    expect(body.results[1]).toMatchObject({ status: 'invalid_arguments', content: expect.stringContaining('`text` must be a string, got number 7') });
    const health = (await (await mf.dispatchFetch('http://worker/healthz')).json()) as { validator: string };
    expect(health.validator).toBe('cfworker');
  });

  it('checks patterns at publish and matches them in linear time inside workerd (the swapped RegExp)', async () => {
    const admin = (path: string, body?: unknown) =>
      mf.dispatchFetch(`http://worker/v1/admin${path}`, { method: 'POST', headers: { authorization: 'Bearer worker-admin-key', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const manifest = (version: string, pattern: string) => ({
      format: 'toolgate.manifest/v1',
      tenant: 'demo',
      version,
      profile: 'openai',
      tools: [{ name: 'echo', executor: { kind: 'builtin' }, input_schema: { type: 'object', properties: { text: { type: 'string', pattern } }, required: ['text'] } }],
    });
    const refused = await admin('/manifests', manifest('2', '^(a+)+$'));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { problems: Array<{ path: string }> } }).error.problems).toEqual([
      { path: '$.tools[0].input_schema.properties.text.pattern', message: expect.stringContaining('can backtrack catastrophically') },
    ]);
    // Accepted (one repetition, nothing overlapping), but each position of an input that never repeats is a new set of 900 threads.
    expect((await admin('/manifests', manifest('3', '[ab]*a[ab]{900}$'))).status).toBe(201);
    expect((await admin('/manifests/3/activate')).status).toBe(200);
    let seed = 7;
    const long = Array.from({ length: 100_000 }, () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 2 === 0 ? 'a' : 'b')).join('');
    const response = await mf.dispatchFetch('http://worker/v1/dispatch', {
      method: 'POST',
      headers: { authorization: 'Bearer worker-test-key', 'content-type': 'application/json' },
      body: JSON.stringify({ thread_id: 'w2', calls: [{ call_id: 'a', name: 'echo', arguments: { text: `a${'b'.repeat(900)}` } }, { call_id: 'b', name: 'echo', arguments: { text: long } }] }),
    });
    const body = (await response.json()) as { results: Array<{ status: string; content: string }> };
    expect(body.results[0]).toMatchObject({ status: 'ok' });
    // Only the linear-time matcher's budgets say these: JavaScript's RegExp would have answered
    // (slowly). Which one runs out first, the validation's steps or the request's 40 ms of
    // matching, depends on the machine's speed.
    const stopped: Record<string, string> = {
      invalid_arguments: 'a value of 100000 characters is too long or too varied to check against the pattern',
      error: 'used up the time this request may spend on patterns',
    };
    expect(Object.keys(stopped)).toContain(body.results[1].status);
    expect(body.results[1].content).toContain(stopped[body.results[1].status]);
  });

  it('indexes a published version and searches it inside workerd (the search code loaded on first use)', async () => {
    const admin = (path: string, body?: unknown) =>
      mf.dispatchFetch(`http://worker/v1/admin${path}`, { method: 'POST', headers: { authorization: 'Bearer worker-admin-key', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const tool = (name: string, description: string) => ({ name, description, executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string' } } } });
    const manifest = { format: 'toolgate.manifest/v1', tenant: 'demo', version: '10', profile: 'openai', tool_search: {}, tools: [{ name: 'echo', executor: { kind: 'builtin' } }, tool('send_invoice', 'Send an invoice to a customer'), tool('list_issues', 'List the issues of a repository')] };
    expect((await admin('/manifests', manifest)).status).toBe(201);
    expect((await admin('/manifests/10/activate')).status).toBe(200);
    const agent = { authorization: 'Bearer worker-test-key', 'content-type': 'application/json' };
    const listed = (await (await mf.dispatchFetch('http://worker/v1/tools?q=bill+a+customer&format=openai', { headers: agent })).json()) as { tools: Array<{ function: { name: string } }> };
    expect(listed.tools.map((t) => t.function.name)).toEqual(['send_invoice']);
    const dispatched = await mf.dispatchFetch('http://worker/v1/dispatch', { method: 'POST', headers: agent, body: JSON.stringify({ thread_id: 'w3', calls: [{ call_id: 's', name: 'search_tools', arguments: { query: 'repository issues' } }] }) });
    const { results } = (await dispatched.json()) as { results: Array<{ status: string; content: string }> };
    expect(results[0].status).toBe('ok');
    expect((JSON.parse(results[0].content) as { tools: Array<{ name: string }> }).tools[0].name).toBe('list_issues');
  });

  it('takes a catalog over the 1 MiB body limit, gzipped (DecompressionStream in workerd), and serves it: the manifest route has its own limit', async () => {
    const catalog = JSON.stringify(catalogManifest(1000, { tenant: 'demo', version: '11' }));
    expect(catalog.length).toBeGreaterThan(1024 * 1024);
    const admin = { authorization: 'Bearer worker-admin-key', 'content-type': 'application/json' };
    const published = await mf.dispatchFetch('http://worker/v1/admin/manifests', { method: 'POST', headers: { ...admin, 'content-encoding': 'gzip' }, body: gzipSync(catalog) });
    expect(await published.json()).toMatchObject({ status: 'published', version: '11' });
    expect((await mf.dispatchFetch('http://worker/v1/admin/manifests/11/activate', { method: 'POST', headers: { authorization: admin.authorization } })).status).toBe(200);
    const agent = { authorization: 'Bearer worker-test-key', 'content-type': 'application/json' };
    const found = (await (await mf.dispatchFetch('http://worker/v1/tools?q=find+GitHub+repositories+about+machine+learning&tag=globex', { headers: agent })).json()) as { tools: Array<{ name: string }> };
    expect(found.tools[0].name).toBe('globex_github_search_repositories');
    const called = await mf.dispatchFetch('http://worker/v1/dispatch', { method: 'POST', headers: agent, body: JSON.stringify({ thread_id: 'w4', calls: [{ call_id: 'c', name: found.tools[0].name, arguments: { query: 'ml' } }] }) });
    expect(await called.json()).toMatchObject({ manifest_version: '11', results: [{ status: 'ok' }] });
  });
});
