import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/**
 * A real MCP server (the official SDK v1, sessions) with a tool that runs only as a task
 * (2025-11-25 tasks: `execution.taskSupport: "required"`), on 127.0.0.1; and, at `noTasksUrl`, a
 * server that lists such a tool without taking tasks at all.
 */
export interface TaskUpstream {
  url: string;
  noTasksUrl: string;
  /** The method of every JSON-RPC request POSTed to `url`, in order. */
  methods: string[];
  close(): Promise<void>;
}

function taskServer(): McpServer {
  const server = new McpServer(
    { name: 'research-test', version: '1.0.0' },
    { capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore: new InMemoryTaskStore() },
  );
  server.experimental.tasks.registerToolTask(
    'research',
    { description: 'Researches a topic for `ms` milliseconds.', inputSchema: { topic: z.string(), ms: z.number() }, execution: { taskSupport: 'required' } },
    {
      async createTask({ topic, ms }, extra) {
        const task = await extra.taskStore.createTask({ ttl: 60_000, pollInterval: 50 });
        setTimeout(() => {
          void extra.taskStore.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: `report on ${topic}` }], structuredContent: { sources: 3 } }).catch(() => {});
        }, ms);
        return { task };
      },
      getTask: (_args, extra) => extra.taskStore.getTask(extra.taskId),
      getTaskResult: (_args, extra) => extra.taskStore.getTaskResult(extra.taskId) as never,
    },
  );
  return server;
}

/** Lists a task-only tool but declares no tasks capability: nothing can call it. */
function noTasksServer(): Server {
  const server = new Server({ name: 'no-tasks', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: 'research', description: 'Task only.', inputSchema: { type: 'object' as const }, execution: { taskSupport: 'required' as const } },
      { name: 'lookup', description: 'Plain.', inputSchema: { type: 'object' as const } },
    ],
  }));
  return server;
}

export async function startTaskUpstream(): Promise<TaskUpstream> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const methods: string[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/notasks/mcp') {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await noTasksServer().connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    const method = (body as { method?: unknown } | undefined)?.method;
    if (req.method === 'POST' && typeof method === 'string') methods.push(method);
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    const existing = sessionId ? sessions.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(req, res, body);
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}');
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => { sessions.set(id, transport); } });
    await taskServer().connect(transport);
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
  return {
    url: `${base}/mcp`,
    noTasksUrl: `${base}/notasks/mcp`,
    methods,
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => {})));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
