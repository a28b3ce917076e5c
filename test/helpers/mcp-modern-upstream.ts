import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createMcpHandler, fromJsonSchema, inputRequired, McpServer } from '@modelcontextprotocol/server';

/**
 * A real MCP server at protocol revision 2026-07-28 (the official SDK v2's createMcpHandler:
 * server/discover, the per-request envelope, Mcp-Method/Mcp-Name/Mcp-Param-* checks, no
 * sessions), on 127.0.0.1. A dev-only fixture: toolgate ships no SDK.
 */
export interface ModernUpstream {
  url: string;
  /** Every POST it received: the method, its headers of interest, and the request's `_meta`. */
  requests: Array<{ method: string; headers: Record<string, string | undefined>; meta: Record<string, unknown> }>;
  close(): Promise<void>;
}

const HEADERS = ['mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-param-query', 'mcp-session-id', 'traceparent', 'authorization'];

function tools(server: McpServer): void {
  server.registerTool(
    'search',
    {
      description: 'Searches contacts.',
      // The argument is mirrored in an Mcp-Param-Query header; the SDK checks it against the body.
      inputSchema: fromJsonSchema({ type: 'object', properties: { query: { type: 'string', 'x-mcp-header': 'Query' } }, required: ['query'] } as Parameters<typeof fromJsonSchema>[0]),
    },
    (args) => ({
      content: [
        { type: 'text', text: `found ${String((args as { query: string }).query)}`, annotations: { audience: ['user'], priority: 0.7 }, _meta: { 'crm/source': 'index', 'toolgate/status': 'spoofed' } },
        { type: 'resource_link', uri: 'crm://contacts/1', name: 'ada', title: 'Ada Lovelace', icons: [{ src: 'https://crm.example/ada.png', mimeType: 'image/png' }], annotations: { priority: 0.2 } },
      ],
      structuredContent: { count: 1 },
      _meta: { 'crm/took_ms': 3, 'io.modelcontextprotocol/related-task': { taskId: 'x' }, 'toolgate/call_id': 'spoofed' },
    }),
  );
  server.registerTool('fails', { description: 'Always fails.', inputSchema: fromJsonSchema({ type: 'object' }) }, () => ({
    isError: true,
    content: [{ type: 'text', text: 'the index is offline', annotations: { audience: ['assistant'] } }],
    structuredContent: { retry_after_s: 30 },
  }));
  server.registerTool('progress', { description: 'Reports progress and logs.', inputSchema: fromJsonSchema({ type: 'object' }) }, async (_args, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (let step = 1; step <= 3; step++) {
      if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: step, total: 3 } });
    }
    await ctx.mcpReq.log('info', 'halfway there');
    return { content: [{ type: 'text', text: 'done' }] };
  });
  server.registerTool('confirm', { description: 'Asks the user first.', inputSchema: fromJsonSchema({ type: 'object' }) }, (_args, ctx) => {
    const answer = ctx.mcpReq.inputResponses?.confirm as { action?: string } | undefined;
    if (!answer) return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ message: 'Really?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } }) } });
    return { content: [{ type: 'text', text: `the user said ${answer.action}` }] };
  });
}

/** A resource and a prompt, for the passthrough of upstream features. */
function features(server: McpServer): void {
  server.registerResource('card', 'crm://contacts/1', { title: 'Ada\'s card', mimeType: 'application/json' }, (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: '{"name":"Ada"}' }] }));
  server.registerPrompt('brief', { description: 'A briefing.' }, () => ({ description: 'Briefing', messages: [{ role: 'user', content: { type: 'text', text: 'Brief me on Ada.' } }] }));
}

async function toRequest(req: IncomingMessage, base: string): Promise<{ request: Request; body: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE';
  return { request: new Request(new URL(req.url ?? '/', base), { method: req.method, headers, ...(hasBody ? { body } : {}) }), body };
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  Readable.fromWeb(response.body as import('node:stream/web').ReadableStream).pipe(res);
}

export async function startModernUpstream(): Promise<ModernUpstream> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'crm-2026', version: '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
    tools(server);
    features(server);
    return server;
  });
  const requests: ModernUpstream['requests'] = [];
  const http = createServer((req, res) => {
    void (async () => {
      const base = `http://${req.headers.host ?? '127.0.0.1'}`;
      const { request, body } = await toRequest(req, base);
      let message: { method?: string; params?: { _meta?: Record<string, unknown> } } = {};
      try { message = JSON.parse(body || '{}'); } catch { /* recorded as is */ }
      requests.push({ method: String(message.method), headers: Object.fromEntries(HEADERS.map((h) => [h, req.headers[h] as string | undefined])), meta: message.params?._meta ?? {} });
      await send(res, await handler.fetch(request));
    })().catch((error: unknown) => { if (!res.headersSent) res.writeHead(500).end(String(error)); });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    requests,
    async close() {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
