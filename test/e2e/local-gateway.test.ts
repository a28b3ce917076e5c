import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, spawnNode, type Spawned } from '../helpers/processes.ts';

/** `npm start` as a user runs it: the real CLI, a real port, the demo tenant, requests over HTTP. */
describe('toolgate serve (npm start)', () => {
  let gateway: Spawned;
  let url: string;
  let key: string;
  let adminKey: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-serve-'));

  beforeAll(async () => {
    const port = await freePort();
    gateway = spawnNode(['bin/toolgate.js', 'serve'], { env: { PORT: String(port), TOOLGATE_DATA_DIR: dataDir, TOOLGATE_DEMO_KEY: '', TOOLGATE_EXEC_PORT: '0', TOOLGATE_WORKSPACE: join(dataDir, 'workspace') } });
    const [, listening] = await gateway.waitFor(/toolgate listening on (http:\/\/127\.0\.0\.1:\d+)/);
    url = listening;
    [, key] = await gateway.waitFor(/demo API key: (tg_[0-9a-f]+)/);
    [, adminKey] = await gateway.waitFor(/demo admin key: (tg_[0-9a-f]+)/);
  });
  afterAll(async () => {
    await gateway.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('generates a demo key at first start and keeps it under the data folder, owner-only', async () => {
    expect(readFileSync(join(dataDir, 'demo-key'), 'utf8').trim()).toBe(key);
    expect(statSync(join(dataDir, 'demo-key')).mode & 0o777).toBe(0o600);
  });

  it("keeps the operator's key apart from the agent's: the agent's only calls tools, the admin key approves and administers", async () => {
    expect(readFileSync(join(dataDir, 'demo-admin-key'), 'utf8').trim()).toBe(adminKey);
    expect(statSync(join(dataDir, 'demo-admin-key')).mode & 0o777).toBe(0o600);
    expect(adminKey).not.toBe(key);
    const as = (bearer: string) => ({ authorization: `Bearer ${bearer}`, 'content-type': 'application/json' });
    for (const path of ['/v1/admin/keys', '/v1/approvals', '/v1/audit?thread_id=readme-1']) {
      expect((await fetch(`${url}${path}`, { headers: as(key) })).status, path).toBe(403);
      expect((await fetch(`${url}${path}`, { headers: as(adminKey) })).status, path).toBe(200);
    }
    const minted = await fetch(`${url}/v1/admin/keys`, { method: 'POST', headers: as(key), body: JSON.stringify({ principal: 'helper', scopes: ['approvals:decide'] }) });
    expect(minted.status).toBe(403);
  });

  it('lists tools in OpenAI format and dispatches a parallel batch (the README examples)', async () => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const tools = await (await fetch(`${url}/v1/tools?format=openai`, { headers })).json();
    expect(tools.tools.map((t: { function: { name: string } }) => t.function.name)).toContain('echo');
    const response = await fetch(`${url}/v1/dispatch`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        thread_id: 'readme-1',
        parallel: true,
        calls: [
          { call_id: 'call_1', name: 'echo', arguments: { text: 'hello from toolgate' } },
          { call_id: 'call_2', name: 'send_email', arguments: { to: 'a@b.c' } },
          { call_id: 'call_3', name: 'echo', arguments: { txt: 'typo' } },
        ],
      }),
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.results.map((r: { status: string }) => r.status)).toEqual(['ok', 'unknown_tool', 'invalid_arguments']);
    expect(body.results[0].content).toBe('hello from toolgate');
  });

  it('exposes Prometheus metrics: latency histogram, calls by status, error rate, registry size', async () => {
    const response = await fetch(`${url}/metrics`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toMatch(/^toolgate_tools_dispatch_total\{status="ok"\} [1-9]\d*$/m);
    expect(text).toMatch(/^toolgate_tools_dispatch_total\{status="unknown_tool"\} [1-9]\d*$/m);
    expect(text).toMatch(/^toolgate_tools_dispatch_latency_ms_bucket\{le="\+Inf"\} [1-9]\d*$/m);
    expect(text).toMatch(/^toolgate_tools_dispatch_error_rate 0\.\d+$/m);
    expect(text).toMatch(/^toolgate_tools_registry_size\{tenant="demo"\} \d+$/m);
  });

  it('serves on 127.0.0.1 and writes JSON log lines with an event field', async () => {
    const line = gateway.output().split('\n').find((l) => l.startsWith('{') && l.includes('tools.dispatch'));
    expect(line && JSON.parse(line).event).toMatch(/^tools\.dispatch\./);
  });
});
