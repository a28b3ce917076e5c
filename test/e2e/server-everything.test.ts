/**
 * Issue 11: tools imported from a real MCP server failed their first call on Node (ajv threw
 * `no schema with key or ref "http://json-schema.org/draft-07/schema#"`). Here the reference
 * server, @modelcontextprotocol/server-everything (its own bin, in Streamable HTTP mode, on
 * loopback), is imported as a user does (`toolgate manifest import-mcp`, then `publish`), and a
 * FRESH `toolgate serve` process (the ajv engine, as `npm start` runs it) calls the imported
 * tools through /v1/dispatch; another fresh one through /mcp. Every first call succeeds.
 * (What the tools return beyond text, such as images, is tested with content parts.)
 * Then every tool imported (`"tools": "all"`) and called through /mcp: annotations as the upstream
 * sends them, its sampling and elicitation requests refused at once, its task-only tool run as a task.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../lib/registry/manifest.ts';
import { baseManifest } from '../helpers/manifests.ts';
import { freePort, runNode, spawnNode, type Spawned } from '../helpers/processes.ts';

const EVERYTHING_BIN = 'node_modules/@modelcontextprotocol/server-everything/dist/index.js';
const IMPORTED = ['echo', 'get-sum', 'get-annotated-message', 'get-structured-content', 'get-resource-reference'];

/** The calls each fresh gateway makes first, and the text each answer must hold. */
const FIRST_CALLS: Array<{ tool: string; args: Record<string, unknown>; text: string | RegExp }> = [
  { tool: 'ev_echo', args: { message: 'hello from toolgate' }, text: 'Echo: hello from toolgate' },
  { tool: 'ev_get-sum', args: { a: 2, b: 40 }, text: /\b42\b/ },
  { tool: 'ev_get-annotated-message', args: { messageType: 'success' }, text: /success/i },
  { tool: 'ev_get-structured-content', args: { location: 'Chicago' }, text: /temperature/i },
  { tool: 'ev_get-resource-reference', args: { resourceType: 'Text', resourceId: 2 }, text: /Resource 2/ },
];

describe('tools imported from @modelcontextprotocol/server-everything, called by fresh gateway processes', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-everything-'));
  let everything: Spawned;
  let egress: string;
  let adminKey: string;
  let agentKey: string;
  let pinned: Manifest;

  /** `toolgate serve` as `npm start` runs it, on the shared data folder; stopped by the caller. */
  async function startGateway(): Promise<{ gateway: Spawned; url: string }> {
    const port = await freePort();
    const gateway = spawnNode(['bin/toolgate.js', 'serve'], {
      env: { PORT: String(port), TOOLGATE_DATA_DIR: dataDir, TOOLGATE_DEMO_KEY: '', TOOLGATE_EXEC_PORT: '0', TOOLGATE_WORKSPACE: join(dataDir, 'workspace'), TOOLGATE_EGRESS_ALLOW: egress },
    });
    const [, url] = await gateway.waitFor(/toolgate listening on (http:\/\/127\.0\.0\.1:\d+)/);
    return { gateway, url };
  }

  beforeAll(async () => {
    const port = await freePort();
    // The bin takes a port but no host: the preload keeps it on 127.0.0.1.
    everything = spawnNode(['--import', './test/helpers/loopback-listen.mjs', EVERYTHING_BIN, 'streamableHttp'], { env: { PORT: String(port) } });
    await everything.waitFor(/listening on port \d+/);
    // The operator lets the gateway (and the CLI) reach exactly this server.
    egress = `127.0.0.1:${port}`;

    const key = async (principal: string, scopes: string) => {
      const created = await runNode(['bin/toolgate.js', 'keys', 'create', '--tenant', 'acme', '--principal', principal, '--scopes', scopes], { env: { TOOLGATE_DATA_DIR: dataDir } });
      expect(created.code).toBe(0);
      return created.stdout.match(/tg_[0-9a-f]+/)![0];
    };
    adminKey = await key('ops', 'admin');
    agentKey = await key('agent', 'everything');

    // The user's manifest: import these tools of the server, read tier (the policy grants read).
    const file = join(dataDir, 'manifest.json');
    const imports = [{ server: 'everything', url: `http://127.0.0.1:${port}/mcp`, tools: IMPORTED, prefix: 'ev_', tier: 'read' }];
    writeFileSync(file, JSON.stringify(baseManifest({ version: '1', policy: { read: 'grant', write: 'deny', execute: 'deny' }, mcp_imports: imports as Manifest['mcp_imports'] }), null, 2));
    const out = join(dataDir, 'pinned.json');
    const imported = await runNode(['bin/toolgate.js', 'manifest', 'import-mcp', file, '--out', out], { env: { TOOLGATE_EGRESS_ALLOW: egress } });
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toContain(`pinned ${IMPORTED.length} tools from "everything"`);
    expect(imported.code).toBe(0);
    pinned = JSON.parse(readFileSync(out, 'utf8')) as Manifest;

    // Published through a gateway that then stops: the calls below are each a fresh process's first.
    const { gateway, url } = await startGateway();
    try {
      const published = await runNode(['bin/toolgate.js', 'manifest', 'publish', out, '--activate'], { env: { TOOLGATE_URL: url, TOOLGATE_KEY: adminKey, TOOLGATE_EGRESS_ALLOW: egress } });
      expect(published.stderr).toBe('');
      expect(published.stdout).toContain('published: version 1');
    } finally {
      await gateway.stop();
    }
  }, 60_000);

  afterAll(async () => {
    await everything?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('pins each tool\'s input schema as the server publishes it, $schema draft-07 included', () => {
    const echo = pinned.tools.find((t) => t.name === 'ev_echo');
    expect(echo?.input_schema).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', required: ['message'] });
    expect(pinned.tools.filter((t) => t.name.startsWith('ev_')).map((t) => (t.input_schema as { $schema?: string } | undefined)?.$schema)).toEqual(IMPORTED.map(() => 'http://json-schema.org/draft-07/schema#'));
  });

  it('a fresh gateway process: every first call through /v1/dispatch succeeds, and the draft-07 schemas are enforced', async () => {
    const { gateway, url } = await startGateway();
    try {
      const response = await fetch(`${url}/v1/dispatch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ thread_id: 'everything-dispatch', calls: FIRST_CALLS.map((c, i) => ({ call_id: `call_${i}`, name: c.tool, arguments: c.args })) }),
      });
      expect(response.status).toBe(200);
      const { results } = (await response.json()) as { results: Array<{ status: string; content: string }> };
      FIRST_CALLS.forEach((call, i) => {
        expect([call.tool, results[i].status]).toEqual([call.tool, 'ok']);
        expect(results[i].content).toMatch(call.text);
      });

      const wrong = await fetch(`${url}/v1/dispatch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ thread_id: 'everything-dispatch', calls: [{ call_id: 'wrong', name: 'ev_get-sum', arguments: { a: 'two' } }] }),
      });
      const [result] = ((await wrong.json()) as { results: Array<{ status: string; content: string }> }).results;
      expect(result.status).toBe('invalid_arguments');
      expect(result.content).toMatch(/`a`.*number/);
      expect(result.content).toMatch(/`b`/);
    } finally {
      await gateway.stop();
    }
  }, 60_000);

  it('a fresh gateway process: every first call through /mcp succeeds', async () => {
    const { gateway, url } = await startGateway();
    try {
      for (const [i, call] of FIRST_CALLS.entries()) {
        const response = await fetch(`${url}/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: call.tool, arguments: call.args } }),
        });
        expect(response.status).toBe(200);
        const body = await mcpBody(response);
        expect([call.tool, body.result?.isError ?? false]).toEqual([call.tool, false]);
        const text = (body.result?.content ?? []).filter((part) => part.type === 'text').map((part) => part.text).join('\n');
        expect(text).toMatch(call.text);
      }
    } finally {
      await gateway.stop();
    }
  }, 60_000);
});

describe('tools of @modelcontextprotocol/server-everything through /mcp, as the upstream answers them', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-everything-all-'));
  let everything: Spawned;
  let gateway: Spawned;
  let url: string;
  let upstreamUrl: string;
  let agentKey: string;

  beforeAll(async () => {
    const port = await freePort();
    upstreamUrl = `http://127.0.0.1:${port}/mcp`;
    everything = spawnNode(['--import', './test/helpers/loopback-listen.mjs', EVERYTHING_BIN, 'streamableHttp'], { env: { PORT: String(port) } });
    await everything.waitFor(/listening on port \d+/);
    const egress = `127.0.0.1:${port}`;
    const created = await runNode(['bin/toolgate.js', 'keys', 'create', '--tenant', 'acme', '--principal', 'agent', '--scopes', 'everything'], { env: { TOOLGATE_DATA_DIR: dataDir } });
    agentKey = created.stdout.match(/tg_[0-9a-f]+/)![0];
    const admin = await runNode(['bin/toolgate.js', 'keys', 'create', '--tenant', 'acme', '--principal', 'ops', '--scopes', 'admin'], { env: { TOOLGATE_DATA_DIR: dataDir } });
    const adminKey = admin.stdout.match(/tg_[0-9a-f]+/)![0];
    const file = join(dataDir, 'manifest.json');
    const imports = [{ server: 'everything', url: `http://127.0.0.1:${port}/mcp`, tools: 'all', prefix: 'ev_', tier: 'read', timeout_ms: 15_000 }];
    writeFileSync(file, JSON.stringify(baseManifest({ version: '1', policy: { read: 'grant', write: 'deny', execute: 'deny' }, mcp_imports: imports as Manifest['mcp_imports'] }), null, 2));
    const appPort = await freePort();
    gateway = spawnNode(['bin/toolgate.js', 'serve'], {
      env: { PORT: String(appPort), TOOLGATE_DATA_DIR: dataDir, TOOLGATE_DEMO_KEY: '', TOOLGATE_EXEC_PORT: '0', TOOLGATE_WORKSPACE: join(dataDir, 'workspace'), TOOLGATE_EGRESS_ALLOW: egress },
    });
    [, url] = await gateway.waitFor(/toolgate listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const published = await runNode(['bin/toolgate.js', 'manifest', 'publish', file, '--activate'], { env: { TOOLGATE_URL: url, TOOLGATE_KEY: adminKey, TOOLGATE_EGRESS_ALLOW: egress } });
    // 13 tools for any client, and 4 it offers only to clients that can be asked (sampling, elicitation, roots).
    expect(published.stderr).toBe('');
    expect(published.stdout).toContain('pinned 17 tools from "everything"');
    expect(published.stdout).toContain('published: version 1');
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await everything?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const callTool = async (name: string, args: Record<string, unknown>) => {
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    });
    expect(response.status).toBe(200);
    return (await mcpBody(response)).result!;
  };

  it('get-annotated-message answers what the upstream answers, annotations included', async () => {
    const args = { messageType: 'success', includeImage: true };
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const direct = new Client({ name: 'direct', version: '1.0.0' });
    await direct.connect(new StreamableHTTPClientTransport(new URL(upstreamUrl)));
    const expected = await direct.callTool({ name: 'get-annotated-message', arguments: args });
    await direct.close();
    expect((expected.content as Array<{ annotations?: unknown }>).every((part) => part.annotations !== undefined)).toBe(true);
    const result = await callTool('ev_get-annotated-message', args);
    expect(result.isError).toBe(false);
    expect(result.content).toEqual(expected.content);
  });

  it('trigger-sampling-request and trigger-elicitation-request fail at once: toolgate answers the upstream\'s request with an error', async () => {
    const sampling = await callTool('ev_trigger-sampling-request', { prompt: 'hello' });
    expect(sampling).toMatchObject({ isError: true, _meta: { 'toolgate/status': 'error' } });
    expect(sampling.content?.[0]?.text).toContain('toolgate cannot relay sampling/createMessage to the client that made this call');
    const elicitation = await callTool('ev_trigger-elicitation-request', {});
    expect(elicitation).toMatchObject({ isError: true, _meta: { 'toolgate/status': 'error' } });
    expect(elicitation.content?.[0]?.text).toContain('toolgate cannot relay elicitation/create to the client that made this call');
  });

  it('simulate-research-query, which runs only as a task, is called as one', async () => {
    const result = await callTool('ev_simulate-research-query', { topic: 'tides' });
    expect(result).toMatchObject({ isError: false, _meta: { 'toolgate/status': 'ok' } });
    expect(result.content?.[0]?.text).toContain('# Research Report: tides');
  }, 20_000);
});

interface McpCallBody {
  result?: { isError?: boolean; content?: Array<{ type: string; text?: string; annotations?: unknown; mimeType?: string }>; _meta?: Record<string, unknown> };
  error?: { message: string };
}

/** A JSON-RPC answer, sent as JSON or as one server-sent event. */
async function mcpBody(response: Response): Promise<McpCallBody> {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) return JSON.parse(text) as McpCallBody;
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  return JSON.parse(data!.slice('data: '.length)) as McpCallBody;
}
