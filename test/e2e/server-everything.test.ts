/**
 * Issue 11: tools imported from a real MCP server failed their first call on Node (ajv threw
 * `no schema with key or ref "http://json-schema.org/draft-07/schema#"`). Here the reference
 * server, @modelcontextprotocol/server-everything (its own bin, in Streamable HTTP mode, on
 * loopback), is imported as a user does (`toolgate manifest import-mcp`, then `publish`), and a
 * FRESH `toolgate serve` process (the ajv engine, as `npm start` runs it) calls the imported
 * tools through /v1/dispatch; another fresh one through /mcp. Every first call succeeds.
 * (What the tools return beyond text, such as images, is tested with content parts.)
 * Then everything imported (`"all"` tools, resources, templates, prompts) and asked both directly
 * and through /mcp: the answers must be the upstream's (the parity bar of issue 23).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../lib/registry/manifest/manifest.ts';
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

/**
 * The parity bar: every tool, resource and prompt of the reference server, asked directly (the
 * official SDK v1 client, declaring sampling, elicitation and roots and answering them) and
 * through toolgate's /mcp (the same client, with a key), answers the same: content with its
 * annotations, structured content, isError, the result's _meta besides toolgate's own keys, and
 * the progress notifications. An upstream's requests of the client made during a call (sampling,
 * elicitation) reach the client on the call's event stream, and its answers go back (the reply
 * channel), so those tools answer the same too. The differences are named (DIFFERENCES below, and
 * docs/mcp.md): a request the upstream makes outside any call (roots/list on its session's own
 * stream) is refused at once, session state lives in toolgate's one upstream session, and times in
 * dynamic resources differ.
 */
describe('@modelcontextprotocol/server-everything through /mcp, as the upstream answers it', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-everything-all-'));
  let everything: Spawned;
  let gateway: Spawned;
  let upstreamUrl: string;
  let direct: Client;
  let through: Client;
  let publishedOutput: string;

  /** What a client that can be asked answers: a model's message, the user's input, its roots. */
  async function connectAnswering(url: string, headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'parity', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, () => ({ role: 'assistant', content: { type: 'text', text: 'a summary' }, model: 'test-model', stopReason: 'endTurn' }));
    client.setRequestHandler(ElicitRequestSchema, (request) => (request.params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name: 'Ada', check: true, firstLine: 'x', integer: 1, number: 1.5, untitledSingleSelectEnum: 'option1', titledSingleSelectEnum: 'value1', legacyTitledEnum: 'opt1', untitledMultipleSelectEnum: ['option1'], titledMultipleSelectEnum: ['value1'] } }));
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return client;
  }

  beforeAll(async () => {
    const port = await freePort();
    upstreamUrl = `http://127.0.0.1:${port}/mcp`;
    everything = spawnNode(['--import', './test/helpers/loopback-listen.mjs', EVERYTHING_BIN, 'streamableHttp'], { env: { PORT: String(port) } });
    await everything.waitFor(/listening on port \d+/);
    const egress = `127.0.0.1:${port}`;
    const created = await runNode(['bin/toolgate.js', 'keys', 'create', '--tenant', 'acme', '--principal', 'agent', '--scopes', 'everything'], { env: { TOOLGATE_DATA_DIR: dataDir } });
    const agentKey = created.stdout.match(/tg_[0-9a-f]+/)![0];
    const admin = await runNode(['bin/toolgate.js', 'keys', 'create', '--tenant', 'acme', '--principal', 'ops', '--scopes', 'admin'], { env: { TOOLGATE_DATA_DIR: dataDir } });
    const adminKey = admin.stdout.match(/tg_[0-9a-f]+/)![0];
    const file = join(dataDir, 'manifest.json');
    const imports = [{ server: 'everything', url: upstreamUrl, tools: 'all', resources: 'all', resource_templates: 'all', prompts: 'all', prefix: 'ev_', tier: 'read', scopes: ['everything'], timeout_ms: 15_000 }];
    writeFileSync(file, JSON.stringify(baseManifest({ version: '1', policy: { read: 'grant', write: 'deny', execute: 'deny' }, mcp_imports: imports as Manifest['mcp_imports'] }), null, 2));
    const appPort = await freePort();
    gateway = spawnNode(['bin/toolgate.js', 'serve'], {
      env: { PORT: String(appPort), TOOLGATE_DATA_DIR: dataDir, TOOLGATE_DEMO_KEY: '', TOOLGATE_EXEC_PORT: '0', TOOLGATE_WORKSPACE: join(dataDir, 'workspace'), TOOLGATE_EGRESS_ALLOW: egress },
    });
    const [, url] = await gateway.waitFor(/toolgate listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const published = await runNode(['bin/toolgate.js', 'manifest', 'publish', file, '--activate'], { env: { TOOLGATE_URL: url, TOOLGATE_KEY: adminKey, TOOLGATE_EGRESS_ALLOW: egress } });
    expect(published.stderr).toBe('');
    publishedOutput = published.stdout;
    direct = await connectAnswering(upstreamUrl);
    through = await connectAnswering(`${url}/mcp`, { authorization: `Bearer ${agentKey}` });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([direct?.close(), through?.close()]);
    await gateway?.stop();
    await everything?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('imports everything the server offers a client that can be asked: 17 tools, 7 resources, 2 templates, 4 prompts', () => {
    // 13 tools for any client, and 4 it offers only to clients that can be asked (sampling, elicitation, roots).
    expect(publishedOutput).toContain('pinned 17 tools from "everything"');
    expect(publishedOutput).toContain('and 7 resources, 2 resource templates, 4 prompts');
    expect(publishedOutput).toContain('published: version 1');
  });

  it('lists the same resources, templates and prompts, and declares them', async () => {
    expect(through.getServerCapabilities()).toMatchObject({ tools: {}, logging: {}, resources: {}, prompts: {}, completions: {} });
    const upstreamResources = (await direct.listResources()).resources.filter((resource) => !resource.uri.startsWith('demo://resource/session/'));
    expect((await through.listResources()).resources).toEqual(upstreamResources);
    expect((await through.listResourceTemplates()).resourceTemplates).toEqual((await direct.listResourceTemplates()).resourceTemplates);
    expect((await through.listPrompts()).prompts).toEqual((await direct.listPrompts()).prompts);
  });

  it('reads every resource, and a URI of each template, as the upstream does', async () => {
    const uris = [...(await through.listResources()).resources.map((resource) => resource.uri), 'demo://resource/dynamic/text/3', 'demo://resource/dynamic/blob/4'];
    for (const uri of uris) expect([uri, comparable(await through.readResource({ uri }))]).toEqual([uri, comparable(await direct.readResource({ uri }))]);
    await expect(through.readResource({ uri: 'demo://resource/nowhere' })).rejects.toMatchObject({ code: -32002 });
  });

  it('gets every prompt, and completes its arguments, as the upstream does', async () => {
    const cases: Array<[string, Record<string, string> | undefined]> = [
      ['simple-prompt', undefined],
      ['args-prompt', { city: 'Paris', state: 'Texas' }],
      ['completable-prompt', { department: 'Engineering', name: 'Alice' }],
      ['resource-prompt', { resourceType: 'Text', resourceId: '2' }],
    ];
    for (const [name, args] of cases) expect([name, comparable(await through.getPrompt({ name, arguments: args }))]).toEqual([name, comparable(await direct.getPrompt({ name, arguments: args }))]);
    const completions = [
      { ref: { type: 'ref/prompt' as const, name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } },
      { ref: { type: 'ref/prompt' as const, name: 'completable-prompt' }, argument: { name: 'name', value: '' }, context: { arguments: { department: 'Sales' } } },
      { ref: { type: 'ref/resource' as const, uri: 'demo://resource/dynamic/text/{resourceId}' }, argument: { name: 'resourceId', value: '7' } },
    ];
    for (const request of completions) expect(await through.complete(request)).toEqual(await direct.complete(request));
  });

  it('calls every tool and answers as the upstream does, or with the difference named for it', async () => {
    const seen = new Set<string>();
    for (const { tool, args, difference } of TOOL_CASES) {
      seen.add(tool);
      const progress: { direct: Progress[]; through: Progress[] } = { direct: [], through: [] };
      const upstream = await callDirect(direct, tool, args, (p) => progress.direct.push(p));
      const ours = await through.callTool({ name: `ev_${tool}`, arguments: args }, undefined, { onprogress: (p) => progress.through.push(p), timeout: 20_000 });
      if (difference) {
        difference(upstream, ours as ToolAnswer);
        continue;
      }
      expect([tool, comparable(outcome(ours as ToolAnswer))]).toEqual([tool, comparable(outcome(upstream))]);
      expect([tool, progress.through]).toEqual([tool, progress.direct]);
      if (tool === 'trigger-long-running-operation') expect(progress.through.map((p) => p.progress)).toEqual([1, 2, 3]);
    }
    // Every tool the server lists to a client that can be asked was compared.
    expect([...seen].sort()).toEqual((await direct.listTools()).tools.map((t) => t.name).sort());
    // The request refused (outside any call) is in the gateway's log, marked so; the relayed ones are not refused.
    expect(gateway.output()).toMatch(/"event":"mcp\.upstream_request\.refused".*"method":"roots\/list","outside_call":true/);
    expect(gateway.output()).not.toMatch(/"event":"mcp\.upstream_request\.refused".*"method":"(sampling\/createMessage|elicitation\/create)"/);
  }, 120_000);
});

type ToolAnswer = { content?: unknown[]; structuredContent?: unknown; isError?: boolean; _meta?: Record<string, unknown> };

/**
 * A tool's result as the bar compares it: content, structured content, isError, and the result's
 * _meta without the reserved keys: toolgate's own, and the protocol's (an upstream cannot set
 * them through toolgate; the related task of simulate-research-query is toolgate's upstream task,
 * not the client's).
 */
function outcome(result: ToolAnswer) {
  const meta = Object.fromEntries(Object.entries(result._meta ?? {}).filter(([key]) => !key.startsWith('toolgate/') && !key.startsWith('io.modelcontextprotocol/')));
  return { content: result.content ?? [], structuredContent: result.structuredContent, isError: result.isError ?? false, ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) };
}

/**
 * A result with what legitimately differs between two calls made a moment apart left out: the
 * times in a dynamic resource's text (and in the base64 of a blob's).
 */
function comparable(value: unknown): unknown {
  const time = /\d{1,2}:\d{2}:\d{2}(\s?[AP]M)?/g;
  return JSON.parse(JSON.stringify(value), (key, item) => {
    if (typeof item !== 'string') return item;
    if (key === 'blob' || key === 'data') {
      const decoded = Buffer.from(item, 'base64').toString('utf8');
      if (time.test(decoded)) return `[base64 of] ${decoded.replace(time, '<time>')}`;
    }
    return item.replace(time, '<time>');
  });
}

/** The upstream's own answer; a tool that runs only as a task is called as one (as toolgate calls it). */
async function callDirect(client: Client, tool: string, args: Record<string, unknown>, onprogress: (p: Progress) => void): Promise<ToolAnswer> {
  if (tool !== 'simulate-research-query') {
    try {
      return (await client.callTool({ name: tool, arguments: args }, undefined, { onprogress, timeout: 20_000 })) as ToolAnswer;
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: `JSON-RPC error ${(error as { code?: number }).code}: ${(error as Error).message}` }] };
    }
  }
  for await (const message of client.experimental.tasks.callToolStream({ name: tool, arguments: args }, undefined, { task: { ttl: 60_000 }, timeout: 20_000 })) {
    if (message.type === 'result') return message.result as ToolAnswer;
    if (message.type === 'error') throw message.error;
  }
  throw new Error(`${tool}: the task stream ended without a result`);
}

const text = (result: ToolAnswer) => (result.content as Array<{ type: string; text?: string }> | undefined)?.map((part) => part.text ?? '').join('\n') ?? '';

/** Several plain text blocks upstream, one block through toolgate with their text joined by newlines (ids such as an elicitation's left out). */
function textBlocksJoined(upstream: ToolAnswer, ours: ToolAnswer) {
  const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
  expect(upstream.content!.length).toBeGreaterThan(1);
  expect(upstream.content!.every((part) => (part as { type: string }).type === 'text')).toBe(true);
  expect([ours.content?.length, text(ours).replace(uuid, '<id>'), ours.isError ?? false]).toEqual([1, text(upstream).replace(uuid, '<id>'), upstream.isError ?? false]);
}

/**
 * Each tool of the server with arguments to call it with; `difference` checks what differs on
 * purpose (docs/mcp.md names each), otherwise the answers must be equal.
 */
const TOOL_CASES: Array<{ tool: string; args: Record<string, unknown>; difference?: (upstream: ToolAnswer, ours: ToolAnswer) => void }> = [
  { tool: 'echo', args: { message: 'parity' } },
  { tool: 'get-sum', args: { a: 2, b: 40 } },
  { tool: 'get-annotated-message', args: { messageType: 'success', includeImage: true } },
  { tool: 'get-annotated-message', args: { messageType: 'error' } },
  // The same server process answers both: the same environment (toolgate passes it on; tenant admins should not import it blindly).
  { tool: 'get-env', args: {} },
  { tool: 'get-resource-links', args: { count: 4 } },
  { tool: 'get-resource-reference', args: { resourceType: 'Text', resourceId: 2 } },
  { tool: 'get-resource-reference', args: { resourceType: 'Blob', resourceId: 3 } },
  { tool: 'get-structured-content', args: { location: 'Chicago' } },
  { tool: 'get-tiny-image', args: {} },
  { tool: 'gzip-file-as-resource', args: { name: 'note.txt.gz', data: `data:text/plain;base64,${Buffer.from('parity '.repeat(50)).toString('base64')}`, outputType: 'resource' } },
  // The link names a resource of the session that made it: toolgate's upstream session, not the client's (a session resource is not pinned).
  { tool: 'gzip-file-as-resource', args: { name: 'link.txt.gz', data: `data:text/plain;base64,${Buffer.from('link').toString('base64')}`, outputType: 'resourceLink' } },
  { tool: 'trigger-long-running-operation', args: { duration: 0.3, steps: 3 } },
  // Session state: the toggle flips toolgate's one upstream session, whose log messages and resource updates (sent outside any call) reach nobody.
  { tool: 'toggle-simulated-logging', args: {}, difference: (upstream, ours) => expect(text(ours).replace(/session \S+/gi, 'session')).toEqual(text(upstream).replace(/session \S+/gi, 'session')) },
  { tool: 'toggle-simulated-logging', args: {}, difference: (upstream, ours) => expect(text(ours).replace(/session \S+/gi, 'session')).toEqual(text(upstream).replace(/session \S+/gi, 'session')) },
  { tool: 'toggle-subscriber-updates', args: {}, difference: (upstream, ours) => expect(text(ours).replace(/session \S+/gi, 'session')).toEqual(text(upstream).replace(/session \S+/gi, 'session')) },
  { tool: 'toggle-subscriber-updates', args: {}, difference: (upstream, ours) => expect(text(ours).replace(/session \S+/gi, 'session')).toEqual(text(upstream).replace(/session \S+/gi, 'session')) },
  // The server asks for roots outside the call, on its session's own stream: toolgate listens there during calls that may be asked, and refuses at once; the tool then knows no roots.
  {
    tool: 'get-roots-list',
    args: {},
    difference: (upstream, ours) => {
      expect(text(upstream)).toContain('URI: file:///work');
      expect(ours.isError ?? false).toBe(false);
      expect(text(ours)).toContain('The client supports roots but no roots are currently configured');
    },
  },
  // Relayed to the client on the call's event stream, answered by it, and its answers passed back: the same answers.
  // Plain text blocks only (no annotations, no _meta): toolgate's results carry plain text as one string, so they come back as one block, joined by newlines.
  { tool: 'trigger-elicitation-request', args: {}, difference: textBlocksJoined },
  // The same, and each elicitation has an id of its own.
  { tool: 'trigger-url-elicitation', args: { url: 'https://example.com/consent' }, difference: textBlocksJoined },
  { tool: 'trigger-sampling-request', args: { prompt: 'hello' } },
  { tool: 'simulate-research-query', args: { topic: 'tides' } },
];

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
