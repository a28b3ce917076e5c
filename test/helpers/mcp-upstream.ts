import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { CallToolRequestSchema, ErrorCode, isInitializeRequest, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';

export interface UpstreamCallExtra {
  authorization?: string;
  signal: AbortSignal;
  /** The request's `_meta` (progressToken, traceparent). */
  meta: Record<string, unknown>;
  /** A request to the client, on the call's stream (sampling, elicitation, roots). */
  ask(method: string, params: Record<string, unknown>): Promise<unknown>;
  /** A request to the client outside the call, on the session's own stream (as some servers ask for roots). */
  askOutside(method: string, params: Record<string, unknown>): Promise<unknown>;
  /** A notification on the call's stream (progress, log messages). */
  notify(method: string, params: Record<string, unknown>): Promise<void>;
}

export interface UpstreamTool {
  tool: Tool;
  /** Listed (and callable) only in sessions whose client declared this capability, as some servers do. */
  needs?: 'sampling' | 'elicitation' | 'roots';
  run(args: Record<string, unknown>, extra: UpstreamCallExtra): CallToolResult | Promise<CallToolResult>;
}

export interface McpUpstream {
  /** The open endpoint. */
  url: string;
  /** The same tools behind a bearer token checked at the HTTP level (401 without it). */
  secureUrl: string;
  /** The same tools from a server that keeps no sessions (a fresh SDK transport per request). */
  statelessUrl: string;
  /** The same tools from a server that answers JSON instead of event streams. */
  jsonUrl: string;
  /** Answers 200 text/html: something that is not MCP. */
  notMcpUrl: string;
  /** Never answers. */
  hangingUrl: string;
  bearer: string;
  /** What tools/list answers; tests change it to show that pins do not follow. */
  tools: UpstreamTool[];
  initializations: number;
  calls: Array<{ name: string; arguments: Record<string, unknown>; authorization?: string }>;
  /** Every JSON-RPC message POSTed to it, in order. */
  messages: Array<{ method?: string; params?: Record<string, unknown>; result?: unknown; error?: { code: number; message: string } }>;
  cancellations: number;
  /** The server forgets every session, as after a restart. */
  forgetSessions(): void;
  close(): Promise<void>;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
  });

/** The test upstream's three tools: search (slow / boom on request), create_contact (isError on "fail"), admin_report (needs the bearer). */
export function upstreamTools(bearer: string): UpstreamTool[] {
  return [
    {
      tool: {
        name: 'search',
        description: 'Searches contacts by name or email.',
        inputSchema: { type: 'object', properties: { query: { type: 'string', description: 'What to look for' }, limit: { type: 'integer', minimum: 1 } }, required: ['query'], additionalProperties: false },
        annotations: { readOnlyHint: true },
      },
      async run(args, { signal }) {
        if (args.query === 'slow') await sleep(5000, signal);
        if (args.query === 'boom') throw new McpError(ErrorCode.InvalidParams, 'the search index is rebuilding');
        // An answer far past what toolgate reads of one.
        if (args.query === 'huge') return { content: [{ type: 'text', text: 'x'.repeat(20 * 1024 * 1024) }] };
        return { content: [{ type: 'text', text: `2 contacts match "${String(args.query)}"` }, { type: 'text', text: 'Ada, Grace' }], structuredContent: { count: 2 } };
      },
    },
    {
      tool: {
        name: 'create_contact',
        description: 'Creates a contact.',
        inputSchema: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } }, required: ['name'] },
      },
      run(args) {
        if (args.name === 'fail') return { isError: true, content: [{ type: 'text', text: 'a contact named "fail" already exists' }] };
        return { content: [], structuredContent: { id: 'c-1', name: String(args.name) } };
      },
    },
    {
      tool: { name: 'admin_report', description: 'A report for administrators.', inputSchema: { type: 'object', properties: {} } },
      run(_args, { authorization }) {
        if (authorization !== `Bearer ${bearer}`) return { isError: true, content: [{ type: 'text', text: 'missing or wrong bearer token' }] };
        return { content: [{ type: 'text', text: 'report ready' }, { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }, { type: 'resource_link', uri: 'file:///reports/1.pdf', name: 'report' }] };
      },
    },
  ];
}

/** A real MCP server (the official SDK, Streamable HTTP, sessions) on 127.0.0.1, with tools/list pages of `pageSize`. */
export async function startMcpUpstream(options: { pageSize?: number; bearer?: string } = {}): Promise<McpUpstream> {
  const pageSize = options.pageSize ?? 2;
  const bearer = options.bearer ?? 'upstream-token';
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const state = { tools: upstreamTools(bearer), initializations: 0, calls: [] as McpUpstream['calls'], cancellations: 0, messages: [] as McpUpstream['messages'] };

  const mcpServer = () => {
    const server = new Server({ name: 'crm-test', version: '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
    const offered = () => state.tools.filter((t) => !t.needs || server.getClientCapabilities()?.[t.needs] !== undefined);
    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      const start = Number(request.params?.cursor ?? 0);
      const tools = offered();
      const page = tools.slice(start, start + pageSize).map((t) => t.tool);
      return { tools: page, ...(start + pageSize < tools.length ? { nextCursor: String(start + pageSize) } : {}) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const authorization = extra.requestInfo?.headers.authorization as string | undefined;
      const args = request.params.arguments ?? {};
      state.calls.push({ name: request.params.name, arguments: args, authorization });
      const tool = offered().find((t) => t.tool.name === request.params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}`);
      return tool.run(args, {
        authorization,
        signal: extra.signal,
        meta: (request.params._meta ?? {}) as Record<string, unknown>,
        ask: (method, params) => extra.sendRequest({ method, params } as never, z.unknown() as never),
        askOutside: (method, params) => server.request({ method, params } as never, z.unknown() as never, { timeout: 30_000 }),
        notify: (method, params) => extra.sendNotification({ method, params } as never),
      });
    });
    server.onclose = () => {};
    return server;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/hang') return;
    if (path === '/not-mcp') { res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'); return; }
    if (path === '/secure/mcp' && req.headers.authorization !== `Bearer ${bearer}`) { res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_token"}'); return; }
    if (path === '/stateless/mcp') {
      if (isInitializeRequest(body)) state.initializations++;
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await mcpServer().connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    if (path !== '/mcp' && path !== '/secure/mcp' && path !== '/json/mcp') { res.writeHead(404).end('no such endpoint'); return; }
    if (req.method === 'POST' && body !== undefined && !Array.isArray(body)) state.messages.push(body as McpUpstream['messages'][number]);
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    if (sessionId) {
      const transport = sessions.get(sessionId);
      if (!transport) { res.writeHead(404, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}'); return; }
      if (req.method === 'POST' && Array.isArray(body) === false && (body as { method?: string }).method === 'notifications/cancelled') state.cancellations++;
      await transport.handleRequest(req, res, body);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) { res.writeHead(400, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}'); return; }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => { sessions.set(id, transport); }, enableJsonResponse: path === '/json/mcp' });
    state.initializations++;
    await mcpServer().connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try { body = text ? JSON.parse(text) : undefined; } catch { body = undefined; }
      handle(req, res, body).catch((error: unknown) => { if (!res.headersSent) res.writeHead(500).end(String(error)); });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const closeSessions = async () => {
    const open = [...sessions.values()];
    sessions.clear();
    await Promise.all(open.map((t) => t.close().catch(() => {})));
  };
  return {
    url: `${base}/mcp`,
    secureUrl: `${base}/secure/mcp`,
    statelessUrl: `${base}/stateless/mcp`,
    jsonUrl: `${base}/json/mcp`,
    notMcpUrl: `${base}/not-mcp`,
    hangingUrl: `${base}/hang`,
    bearer,
    get tools() { return state.tools; },
    set tools(value) { state.tools = value; },
    get initializations() { return state.initializations; },
    get calls() { return state.calls; },
    get cancellations() { return state.cancellations; },
    get messages() { return state.messages; },
    forgetSessions: () => { void closeSessions(); },
    async close() {
      await closeSessions();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
