/**
 * The reply channel across gateway instances: two `toolgate serve` processes share one store (the
 * SQLite file of one data directory, as two instances behind a load balancer share Upstash or
 * DynamoDB). A call runs on instance A; its upstream asks the client something; the client's
 * answer lands on instance B (a legacy POSTed response, or a 2026-07-28 retry), and reaches the
 * call waiting on A through the store alone (no process shares memory with the other).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../lib/registry/manifest/manifest.ts';
import { baseManifest } from '../helpers/manifests.ts';
import { startMcpUpstream, type McpUpstream } from '../helpers/mcp-upstream.ts';
import { freePort, runNode, spawnNode, type Spawned } from '../helpers/processes.ts';

const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' };
const MODERN = '2026-07-28';

describe('the reply channel between two gateway processes sharing a store', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-relay-instances-'));
  let upstream: McpUpstream;
  let gateways: Spawned[] = [];
  let urls: string[] = [];
  let agentKey: string;

  beforeAll(async () => {
    upstream = await startMcpUpstream();
    upstream.tools = [{
      tool: { name: 'capital', description: "Asks the client's model for a capital.", inputSchema: { type: 'object', properties: { country: { type: 'string' } } } },
      async run(args, { ask }) {
        const answer = (await ask('sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: `Capital of ${String(args.country)}?` } }], maxTokens: 10 })) as { content: { text: string } };
        return { content: [{ type: 'text', text: `the model says: ${answer.content.text}` }] };
      },
    }];
    const egress = new URL(upstream.url).host;
    const env = { TOOLGATE_DATA_DIR: dataDir };
    agentKey = (await runNode(['bin/toolgate.js', 'keys', 'create', '--tenant', 'acme', '--principal', 'agent', '--scopes', 'none'], { env })).stdout.match(/tg_[0-9a-f]+/)![0];
    const adminKey = (await runNode(['bin/toolgate.js', 'keys', 'create', '--tenant', 'acme', '--principal', 'ops', '--scopes', 'admin'], { env })).stdout.match(/tg_[0-9a-f]+/)![0];
    const file = join(dataDir, 'manifest.json');
    const imports = [{ server: 'asking', url: upstream.url, tools: ['capital'], tier: 'read', timeout_ms: 20_000 }];
    writeFileSync(file, JSON.stringify(baseManifest({ version: '1', policy: { read: 'grant', write: 'deny', execute: 'deny' }, mcp_imports: imports as Manifest['mcp_imports'] }), null, 2));
    for (const instance of ['a', 'b']) {
      const gateway = spawnNode(['bin/toolgate.js', 'serve'], {
        env: { PORT: String(await freePort()), TOOLGATE_DATA_DIR: dataDir, TOOLGATE_DEMO_KEY: '', TOOLGATE_EXEC_PORT: '0', TOOLGATE_WORKSPACE: join(dataDir, `workspace-${instance}`), TOOLGATE_EGRESS_ALLOW: egress },
      });
      gateways.push(gateway);
      urls.push((await gateway.waitFor(/toolgate listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!);
    }
    const published = await runNode(['bin/toolgate.js', 'manifest', 'publish', file, '--activate'], { env: { TOOLGATE_URL: urls[0], TOOLGATE_KEY: adminKey, TOOLGATE_EGRESS_ALLOW: egress } });
    expect(published.stderr).toBe('');
  }, 60_000);

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await upstream?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (url: string, body: unknown, headers: Record<string, string>) => fetch(`${url}/mcp`, { method: 'POST', headers: { ...ACCEPT, authorization: `Bearer ${agentKey}`, ...headers }, body: JSON.stringify(body) });

  it('legacy: the request goes out on A, the answer is POSTed to B, the result comes on A', async () => {
    const response = await post(urls[0]!, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'capital', arguments: { country: 'France' } } }, { 'mcp-protocol-version': '2025-11-25' });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const nextMessage = async () => {
      for (;;) {
        const end = text.indexOf('\n\n');
        if (end >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const data = block.split('\n').find((line) => line.startsWith('data: '));
          if (data) return JSON.parse(data.slice(6)) as { id: string | number; method?: string; result?: { content: Array<{ text: string }> } };
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        text += value;
      }
    };
    const request = await nextMessage();
    expect(request.method).toBe('sampling/createMessage');
    const taken = await post(urls[1]!, { jsonrpc: '2.0', id: request.id, result: SAMPLED }, { 'mcp-protocol-version': '2025-11-25' });
    expect(taken.status).toBe(202);
    expect((await nextMessage()).result?.content[0]?.text).toBe('the model says: Paris');
  });

  it('2026-07-28: input_required from A, the retry with the answer to B gets the result', async () => {
    const call = (url: string, id: number, extra: Record<string, unknown> = {}) =>
      post(url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'capital', arguments: { country: 'Italy' }, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } }, ...extra } }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'capital' });
    const first = (await (await call(urls[0]!, 1)).json()) as { result: { resultType: string; inputRequests: Record<string, unknown>; requestState: string } };
    expect(first.result.resultType).toBe('input_required');
    const key = Object.keys(first.result.inputRequests)[0]!;
    const done = (await (await call(urls[1]!, 2, { requestState: first.result.requestState, inputResponses: { [key]: { ...SAMPLED, content: { type: 'text', text: 'Rome' } } } })).json()) as { result: { content: Array<{ text: string }> } };
    expect(done.result.content[0]?.text).toBe('the model says: Rome');
    expect(upstream.calls.filter((c) => c.name === 'capital')).toHaveLength(2);
  }, 30_000);
});
