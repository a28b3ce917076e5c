import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../lib/cli/node-egress.ts';
import { createApiKey } from '../../lib/governance/api-keys.ts';
import { createRuntimeGateway } from '../../lib/http/runtime-gateway.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { LOOPBACK_EGRESS_ALLOW } from '../helpers/gateway.ts';
import { closedPort, startTestServer, type TestServer } from '../helpers/http-server.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startOtlpReceiver, type ReceivedSpan } from './otlp-receiver.ts';

const KEY = 'tg_otel_export_test_key_0123456789';
const APPROVER_KEY = 'tg_otel_export_approver_key_0123456';
const TOOL_SECRET = 'otel-test-tool-secret-do-not-leak-0001';
const EXEC_SECRET = 'otel-test-exec-secret-do-not-leak-0002';
const SENSITIVE_TOKEN = 'sk-live-otel-test-sensitive-argument';
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

type Gateway = ReturnType<typeof createRuntimeGateway>;

/**
 * The gateway as `toolgate serve` runs it on Node (its runtime gateway over @hono/node-server
 * on loopback), exporting to a local OTLP receiver: real dispatches, real outgoing requests to
 * a tool endpoint and a fake exec-server, spans decoded from what arrived.
 */
describe('OpenTelemetry export (OTLP/HTTP JSON to a local receiver)', () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let toolServer: TestServer;
  let execServer: TestServer;
  const running: { gateway: Gateway; server: ServerType }[] = [];

  const manifest = (write: 'grant' | 'review' = 'grant') =>
    validManifest({
      tenant: 'acme',
      policy: { read: 'grant', write, execute: 'deny' },
      execution_environment: { url: execServer.url, secret: 'env:EXEC_SECRET' },
      tools: [
        { name: 'echo', executor: { kind: 'builtin' } },
        {
          name: 'notify',
          description: 'Sends a notice.',
          tier: 'write',
          input_schema: { type: 'object', properties: { text: { type: 'string' }, token: { type: 'string', 'x-sensitive': true } }, required: ['text'] },
          executor: { kind: 'http', url: `${toolServer.url}/ok`, secret: 'env:TOOL_SECRET', headers: { tracestate: 'manifest=1' } },
        },
        { name: 'broken', description: 'Always fails.', tier: 'read', input_schema: { type: 'object' }, executor: { kind: 'http', url: `${toolServer.url}/fail`, secret: 'env:TOOL_SECRET' } },
      ],
    });

  async function startGateway(extraEnv: Record<string, string> = {}, log: (event: string, fields: Record<string, unknown>) => void = () => {}, write: 'grant' | 'review' = 'grant') {
    const env = {
      TOOLGATE_DEMO_KEY: KEY,
      TOOLGATE_EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW,
      TOOL_SECRET,
      EXEC_SECRET,
      TOOLGATE_TENANT_SECRETS: 'acme:TOOL_SECRET,EXEC_SECRET',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=collector%20key',
      OTEL_SERVICE_NAME: 'toolgate-under-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
      ...extraEnv,
    };
    const gateway = createRuntimeGateway({ runtime: 'node', env, manifests: [manifest(write)], store: new MemoryStore(), log, egressTransport: nodeEgressTransport() });
    await gateway.ready;
    const server = await new Promise<ServerType>((resolve) => {
      const started = serve({ fetch: gateway.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
    });
    running.push({ gateway, server });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { gateway, url };
  }

  const post = (url: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  async function dispatch(url: string, calls: { call_id: string; name: string; arguments: unknown }[], headers: Record<string, string> = {}) {
    const response = await post(url, '/v1/dispatch', { thread_id: 'otel-thread', calls }, headers);
    expect(response.status).toBe(200);
    return (await response.json()) as { results: { call_id: string; status: string; content: string; error?: { code: string } }[] };
  }

  const byName = (spans: ReceivedSpan[], name: string) => {
    const found = spans.filter((span) => span.name === name);
    expect(found, `span "${name}" among ${spans.map((s) => s.name).join(', ')}`).toHaveLength(1);
    return found[0]!;
  };

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    toolServer = await startTestServer((request, response) => {
      if (request.url === '/fail') response.writeHead(500, { 'content-type': 'text/plain' }).end('upstream broke');
      else response.writeHead(200, { 'content-type': 'application/json' }).end('{"sent":true}');
    });
    // Answers every exec RPC as an environment error: enough for a call to go out and come back.
    execServer = await startTestServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"no such file"}}');
    });
  });

  beforeEach(() => {
    receiver.reset();
    toolServer.requests.splice(0);
    execServer.requests.splice(0);
  });

  afterAll(async () => {
    for (const { gateway, server } of running) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.tracer?.shutdown();
    }
    await Promise.all([receiver?.close(), toolServer?.close(), execServer?.close()]);
  });

  it('exports one execute_tool span per call with the GenAI attributes, and child spans for the store and the executor', async () => {
    const { gateway, url } = await startGateway();
    const answer = await dispatch(url, [{ call_id: 'call-notify-1', name: 'notify', arguments: { text: 'hello', token: SENSITIVE_TOKEN } }]);
    expect(answer.results[0]!.status).toBe('ok');
    await gateway.tracer!.flush();

    const spans = receiver.spans();
    const server = byName(spans, 'POST /v1/dispatch');
    const tool = byName(spans, 'execute_tool notify');
    expect(server.kind).toBe(2);
    expect(server.parentSpanId).toBeUndefined();
    expect(server.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/v1/dispatch', 'http.response.status_code': 200, 'toolgate.tenant': 'acme' });
    expect(tool.kind).toBe(1);
    expect(tool.traceId).toBe(server.traceId);
    expect(tool.parentSpanId).toBe(server.spanId);
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'notify',
      'gen_ai.tool.call.id': 'call-notify-1',
      'gen_ai.tool.type': 'extension',
      'toolgate.tenant': 'acme',
      'toolgate.principal': 'demo-user',
      'toolgate.status': 'ok',
      'toolgate.tool.tier': 'write',
    });
    expect(tool.attributes['error.type']).toBeUndefined();
    expect(tool.status.code).toBe(0);
    // Content is the operator's to opt into: not by default.
    expect(tool.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    expect(tool.attributes['gen_ai.tool.call.result']).toBeUndefined();

    // A write call: claim, begin (its start made durable), execute, record, each a child of the call's span.
    for (const stage of ['toolgate.claim', 'toolgate.begin', 'toolgate.execute', 'toolgate.record']) {
      const child = byName(spans, stage);
      expect(child.traceId).toBe(tool.traceId);
      expect(child.parentSpanId).toBe(tool.spanId);
      expect(BigInt(child.startTimeUnixNano) >= BigInt(tool.startTimeUnixNano)).toBe(true);
      expect(BigInt(child.endTimeUnixNano) <= BigInt(tool.endTimeUnixNano)).toBe(true);
    }
    expect(byName(spans, 'toolgate.claim').attributes['toolgate.store']).toBe('memory');

    // The resource, and the collector's header from OTEL_EXPORTER_OTLP_HEADERS.
    expect(receiver.resources()[0]).toMatchObject({ 'service.name': 'toolgate-under-test', 'deployment.environment': 'test' });
    expect(receiver.requests[0]!.headers['x-collector-key']).toBe('collector key');
    // No secret reaches the collector: the API key, the tool's and exec-server's secrets, a sensitive argument.
    const exported = receiver.bodies().join('\n');
    for (const secret of [KEY, TOOL_SECRET, EXEC_SECRET, SENSITIVE_TOKEN]) expect(exported).not.toContain(secret);
  });

  it('marks a failing call with error.type (toolgate\'s code) and status ERROR, and a read call has no store spans', async () => {
    const { gateway, url } = await startGateway();
    const answer = await dispatch(url, [{ call_id: 'call-broken-1', name: 'broken', arguments: {} }]);
    expect(answer.results[0]!.status).toBe('error');
    await gateway.tracer!.flush();
    const spans = receiver.spans();
    const tool = byName(spans, 'execute_tool broken');
    expect(tool.attributes['error.type']).toBe('error');
    expect(tool.status.code).toBe(2);
    // The status message is the code, never the error text (which can quote the tool's answer).
    expect(tool.status.message).toBe('error');
    expect(JSON.stringify(spans)).not.toContain('upstream broke');
    const execute = byName(spans, 'toolgate.execute');
    expect(execute.parentSpanId).toBe(tool.spanId);
    expect(execute.attributes['error.type']).toBe('error');
    expect(spans.filter((span) => span.name === 'toolgate.claim' || span.name === 'toolgate.begin')).toEqual([]);

    const unknown = await dispatch(url, [{ call_id: 'call-unknown-1', name: 'no_such_tool', arguments: {} }]);
    expect(unknown.results[0]!.status).toBe('unknown_tool');
    await gateway.tracer!.flush();
    // A name no manifest has is an attribute, not part of the span name (junk names would be unbounded span names).
    expect(byName(receiver.spans(), 'execute_tool').attributes).toMatchObject({ 'error.type': 'unknown_tool', 'gen_ai.tool.name': 'no_such_tool' });
  });

  it('continues an incoming traceparent, and the http executor receives a traceparent of the same trace (and no caller tracestate)', async () => {
    const { gateway, url } = await startGateway();
    const answer = await dispatch(url, [{ call_id: 'call-notify-2', name: 'notify', arguments: { text: 'traced' } }], {
      traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
      tracestate: 'agent=secret-ish-vendor-data',
    });
    expect(answer.results[0]!.status).toBe('ok');
    await gateway.tracer!.flush();
    const spans = receiver.spans();
    const server = byName(spans, 'POST /v1/dispatch');
    expect(server.traceId).toBe(CALLER_TRACE);
    expect(server.parentSpanId).toBe(CALLER_SPAN);
    expect(server.traceState).toBe('agent=secret-ish-vendor-data');
    const execute = byName(spans, 'toolgate.execute');
    expect(execute.traceId).toBe(CALLER_TRACE);

    const sent = toolServer.requests.find((request) => request.url === '/ok')!;
    expect(sent.headers.traceparent).toBe(`00-${CALLER_TRACE}-${execute.spanId}-01`);
    // Only traceparent: neither the caller's tracestate nor the manifest's own trace header goes to the tenant's endpoint.
    expect(sent.headers.tracestate).toBeUndefined();
    expect(Object.keys(sent.headers).filter((name) => name.startsWith('x-toolgate-trace') || name === 'baggage')).toEqual([]);
  });

  it('gives a call run by an approval its execute_tool span under the deciding request, and its executor that trace', async () => {
    const { gateway, url } = await startGateway({ TOOLGATE_OTEL_CAPTURE_CONTENT: 'true' }, () => {}, 'review');
    await createApiKey(gateway.store, { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide'] }, APPROVER_KEY);
    const parked = await dispatch(url, [{ call_id: 'call-approved-1', name: 'notify', arguments: { text: 'after review', token: SENSITIVE_TOKEN } }]);
    expect(parked.results[0]!.status).toBe('pending_approval');
    const approvalId = (parked.results[0] as unknown as { error: { details: { approval_id: string } } }).error.details.approval_id;
    await gateway.tracer!.flush();
    receiver.reset();
    toolServer.requests.splice(0);

    const decided = await fetch(`${url}/v1/approvals/${approvalId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${APPROVER_KEY}`, 'content-type': 'application/json', traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(decided.status).toBe(200);
    expect(((await decided.json()) as { result: { status: string } }).result.status).toBe('ok');
    await gateway.tracer!.flush();
    const spans = receiver.spans();
    const server = byName(spans, 'POST /v1/approvals/:id');
    const tool = byName(spans, 'execute_tool notify');
    expect(tool.traceId).toBe(CALLER_TRACE);
    expect(tool.parentSpanId).toBe(server.spanId);
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'notify',
      'gen_ai.tool.call.id': 'call-approved-1',
      'gen_ai.tool.type': 'extension',
      'toolgate.tenant': 'acme',
      'toolgate.principal': 'demo-user',
      'toolgate.approval.id': approvalId,
      'toolgate.decision': 'approved',
      'toolgate.status': 'ok',
    });
    // Opted-in content is masked as for any call.
    expect(String(tool.attributes['gen_ai.tool.call.arguments'])).toContain('after review');
    expect(receiver.bodies().join('\n')).not.toContain(SENSITIVE_TOKEN);
    for (const stage of ['toolgate.begin', 'toolgate.execute', 'toolgate.record']) expect(byName(spans, stage).parentSpanId).toBe(tool.spanId);
    // The tool's endpoint got the execute stage's traceparent: the deciding request's trace.
    const execute = byName(spans, 'toolgate.execute');
    expect(toolServer.requests.at(-1)!.headers.traceparent).toBe(`00-${CALLER_TRACE}-${execute.spanId}-01`);
  });

  it('ignores a malformed traceparent (a new trace starts; the call still runs)', async () => {
    const { gateway, url } = await startGateway();
    const malformed = [
      `00-${CALLER_TRACE.toUpperCase()}-${CALLER_SPAN}-01`,
      `00-${'0'.repeat(32)}-${CALLER_SPAN}-01`,
      `00-${CALLER_TRACE}-${'0'.repeat(16)}-01`,
      `ff-${CALLER_TRACE}-${CALLER_SPAN}-01`,
      `00-${CALLER_TRACE}-${CALLER_SPAN}-01-extra`,
      `00-${CALLER_TRACE}-${CALLER_SPAN}`,
      `00-${CALLER_TRACE}-${CALLER_SPAN}-01,00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`,
      `00-${CALLER_TRACE}x-${CALLER_SPAN}-01`,
      `00-${CALLER_TRACE}-${CALLER_SPAN}-01${' '.repeat(600)}x`,
    ];
    for (const [index, traceparent] of malformed.entries()) {
      const answer = await dispatch(url, [{ call_id: `call-malformed-${index}`, name: 'echo', arguments: { text: 'x' } }], { traceparent });
      expect(answer.results[0]!.status, traceparent).toBe('ok');
    }
    await gateway.tracer!.flush();
    const servers = receiver.spans().filter((span) => span.name === 'POST /v1/dispatch');
    expect(servers).toHaveLength(malformed.length);
    for (const server of servers) {
      expect(server.traceId).not.toBe(CALLER_TRACE);
      expect(server.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(server.parentSpanId).toBeUndefined();
    }
    expect(new Set(servers.map((span) => span.traceId)).size).toBe(malformed.length);
  });

  it('does not let a model-chosen tool name shape span names or grow attributes', async () => {
    const { gateway, url } = await startGateway();
    const hostile = `${'a b/c '.repeat(300)}execute_tool notify`;
    const answer = await dispatch(url, [{ call_id: 'x'.repeat(190), name: hostile, arguments: {} }]);
    expect(answer.results[0]!.status).toBe('unknown_tool');
    await gateway.tracer!.flush();
    const tool = byName(receiver.spans(), 'execute_tool');
    expect(tool.attributes['error.type']).toBe('unknown_tool');
    expect(String(tool.attributes['gen_ai.tool.name']).length).toBeLessThanOrEqual(201);
  });

  it('sends the call\'s traceparent with the exec RPC (coding tools)', async () => {
    const { gateway, url } = await startGateway();
    const answer = await dispatch(url, [{ call_id: 'call-read-1', name: 'read_file', arguments: { file_path: 'notes.txt' } }], { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
    expect(answer.results[0]!.status).toBe('error');
    await gateway.tracer!.flush();
    const execute = byName(receiver.spans(), 'toolgate.execute');
    expect(execServer.requests.length).toBeGreaterThan(0);
    for (const request of execServer.requests) expect(request.headers.traceparent).toBe(`00-${CALLER_TRACE}-${execute.spanId}-01`);
  });

  it('makes an MCP server span for tools/call (parent from params._meta, linked to the HTTP span) with the execute_tool span under it', async () => {
    const { gateway, url } = await startGateway();
    const metaSpan = 'a1b2c3d4e5f60718';
    const response = await post(url, '/mcp', { jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'echo', arguments: { text: 'over mcp' }, _meta: { traceparent: `00-${CALLER_TRACE}-${metaSpan}-01` } } }, { accept: 'application/json, text/event-stream' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { content: { text: string }[]; isError?: boolean } };
    expect(body.result.isError ?? false).toBe(false);
    const failed = await post(url, '/mcp', { jsonrpc: '2.0', id: 'req-42', method: 'tools/call', params: { name: 'broken', arguments: {} } }, { accept: 'application/json, text/event-stream' });
    expect(((await failed.json()) as { result: { isError?: boolean } }).result.isError).toBe(true);
    await gateway.tracer!.flush();

    const spans = receiver.spans();
    const mcp = byName(spans, 'tools/call echo');
    const http = spans.filter((span) => span.name === 'POST /mcp');
    expect(http).toHaveLength(2);
    expect(mcp.kind).toBe(2);
    expect(mcp.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'jsonrpc.request.id': '41', 'gen_ai.tool.name': 'echo', 'gen_ai.operation.name': 'execute_tool' });
    expect(mcp.traceId).toBe(CALLER_TRACE);
    expect(mcp.parentSpanId).toBe(metaSpan);
    expect(mcp.links).toEqual([{ traceId: http[0]!.traceId, spanId: http[0]!.spanId }]);
    const tool = byName(spans, 'execute_tool echo');
    expect(tool.parentSpanId).toBe(mcp.spanId);

    // Without _meta the HTTP request's span is the parent; a tool error is error.type tool_error.
    const mcpFailed = byName(spans, 'tools/call broken');
    expect(mcpFailed.attributes).toMatchObject({ 'jsonrpc.request.id': 'req-42', 'error.type': 'tool_error' });
    expect(mcpFailed.status.code).toBe(2);
    expect(mcpFailed.parentSpanId).toBe(http[1]!.spanId);
    expect(byName(spans, 'execute_tool broken').parentSpanId).toBe(mcpFailed.spanId);
  });

  it('continues the traceparent of a 2026-07-28 request\'s _meta envelope, and names the revision on the MCP span', async () => {
    const { gateway, url } = await startGateway();
    const metaSpan = 'b1b2c3d4e5f60718';
    const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, traceparent: `00-${CALLER_TRACE}-${metaSpan}-01` };
    const headers = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' };
    const response = await post(url, '/mcp', { jsonrpc: '2.0', id: 43, method: 'tools/call', params: { name: 'echo', arguments: { text: 'modern' }, _meta: envelope } }, headers);
    expect(((await response.json()) as { result: { resultType: string } }).result.resultType).toBe('complete');
    await gateway.tracer!.flush();
    const mcp = byName(receiver.spans(), 'tools/call echo');
    expect([mcp.traceId, mcp.parentSpanId]).toEqual([CALLER_TRACE, metaSpan]);
    expect(mcp.attributes).toMatchObject({ 'mcp.protocol.version': '2026-07-28', 'jsonrpc.request.id': '43' });
    expect(byName(receiver.spans(), 'execute_tool echo').parentSpanId).toBe(mcp.spanId);
  });

  it("names a legacy session's agreed revision on the MCP span, whatever the request's MCP-Protocol-Version header says", async () => {
    const { gateway, url } = await startGateway();
    const mcpHeaders = { accept: 'application/json, text/event-stream' };
    const opened = await post(url, '/mcp', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, mcpHeaders);
    const session = opened.headers.get('mcp-session-id')!;
    // As the conformance suite's client does: the transport's default revision in the header, the session agreed 2025-11-25.
    const inSession = await post(url, '/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'in session' } } }, { ...mcpHeaders, 'mcp-session-id': session, 'mcp-protocol-version': '2025-03-26' });
    expect(inSession.status).toBe(200);
    const without = await post(url, '/mcp', { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { ...mcpHeaders, 'mcp-protocol-version': '2025-03-26' });
    expect(without.status).toBe(200);
    await gateway.tracer!.flush();
    expect(byName(receiver.spans(), 'tools/call echo').attributes).toMatchObject({ 'mcp.protocol.version': '2025-11-25', 'jsonrpc.request.id': '2' });
    expect(byName(receiver.spans(), 'tools/list').attributes).toMatchObject({ 'mcp.protocol.version': '2025-03-26', 'jsonrpc.request.id': '3' });
  });

  it('records arguments (sensitive fields masked) and results only when the operator opts in', async () => {
    const { gateway, url } = await startGateway({ TOOLGATE_OTEL_CAPTURE_CONTENT: 'true' });
    await dispatch(url, [
      { call_id: 'call-notify-3', name: 'notify', arguments: { text: 'visible', token: SENSITIVE_TOKEN } },
      { call_id: 'call-broken-3', name: 'broken', arguments: {} },
    ]);
    await gateway.tracer!.flush();
    const spans = receiver.spans();
    const notify = byName(spans, 'execute_tool notify');
    expect(JSON.parse(String(notify.attributes['gen_ai.tool.call.arguments']))).toEqual({ text: 'visible', token: '••••••' });
    expect(notify.attributes['gen_ai.tool.call.result']).toBe('{"sent":true}');
    // A failed call has no result attribute (the convention: the result of a successful execution).
    expect(byName(spans, 'execute_tool broken').attributes['gen_ai.tool.call.result']).toBeUndefined();
    expect(receiver.bodies().join('\n')).not.toContain(SENSITIVE_TOKEN);
  });

  it('keeps propagating when the sampler drops the trace (flag 00), and exports nothing', async () => {
    const { gateway, url } = await startGateway({ OTEL_TRACES_SAMPLER: 'always_off' });
    const answer = await dispatch(url, [{ call_id: 'call-notify-4', name: 'notify', arguments: { text: 'unsampled' } }], { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
    expect(answer.results[0]!.status).toBe('ok');
    await gateway.tracer!.flush();
    expect(receiver.spans()).toEqual([]);
    expect(toolServer.requests[0]!.headers.traceparent).toMatch(new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-00$`));
  });

  it('answers every call when the collector is down, and logs the failure (not per span)', async () => {
    const logged: { event: string; fields: Record<string, unknown> }[] = [];
    const { gateway, url } = await startGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await closedPort()}` }, (event, fields) => logged.push({ event, fields }));
    for (let round = 0; round < 3; round++) {
      const answer = await dispatch(url, [{ call_id: `call-down-${round}`, name: 'notify', arguments: { text: 'still answered' } }]);
      expect(answer.results[0]).toMatchObject({ status: 'ok', content: '{"sent":true}' });
      await gateway.tracer!.flush();
    }
    const failures = logged.filter((entry) => entry.event === 'telemetry.export_failed');
    expect(failures).toHaveLength(1);
    expect(failures[0]!.fields).toMatchObject({ reason: 'ECONNREFUSED' });
    expect(gateway.tracer!.queued).toBe(0);
  });

  it('is off without an endpoint, or with OTEL_SDK_DISABLED=true', async () => {
    const without = await startGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: '' });
    expect(without.gateway.tracer).toBeUndefined();
    const disabled = await startGateway({ OTEL_SDK_DISABLED: 'true' });
    expect(disabled.gateway.tracer).toBeUndefined();
    const answer = await dispatch(disabled.url, [{ call_id: 'call-off-1', name: 'notify', arguments: { text: 'untraced' } }], { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
    expect(answer.results[0]!.status).toBe('ok');
    // Tracing off: nothing of it goes to the tool either.
    expect(toolServer.requests[0]!.headers.traceparent).toBeUndefined();
    expect(receiver.requests).toEqual([]);
  });
});
