import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/**
 * A real legacy MCP server (the official SDK v1's McpServer, no sessions, on 127.0.0.1) with
 * resources, a resource template, prompts and completions, for the passthrough of upstream
 * features; it counts the reads it serves.
 */
export interface FeatureUpstream {
  url: string;
  reads: string[];
  close(): Promise<void>;
}

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function server(reads: string[]): McpServer {
  const mcp = new McpServer({ name: 'docs', version: '1.0.0' }, { capabilities: { logging: {} } });
  mcp.registerResource('readme', 'docs://readme', { title: 'Read me', description: 'The read-me.', mimeType: 'text/markdown', annotations: { audience: ['user'], priority: 0.8 } }, (uri) => {
    reads.push(uri.href);
    return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: '# Docs\nHello.' }], _meta: { 'docs/etag': 'v1', 'toolgate/status': 'spoofed' } };
  });
  mcp.registerResource('logo', 'docs://logo.png', { mimeType: 'image/png' }, (uri) => {
    reads.push(uri.href);
    return { contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG }] };
  });
  mcp.registerResource('broken', 'docs://broken', { description: 'Answers what is no resource.' }, (uri) => {
    reads.push(uri.href);
    return { contents: [{ uri: uri.href, blob: 'not base64!' }] };
  });
  const pages = new ResourceTemplate('docs://pages/{page}', { list: undefined, complete: { page: (value) => ['intro', 'install', 'index'].filter((p) => p.startsWith(value)) } });
  mcp.registerResource('page', pages, { title: 'A page', mimeType: 'text/plain' }, (uri, { page }) => {
    reads.push(uri.href);
    return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: `page ${String(page)}` }] };
  });
  mcp.registerPrompt('greet', { title: 'Greeting', description: 'Greets someone.', argsSchema: { name: completable(z.string().describe('Who'), (value) => ['Ada', 'Alan', 'Grace'].filter((n) => n.startsWith(value))), mood: z.string().optional() } }, ({ name, mood }) => ({
    description: `A greeting for ${name}`,
    messages: [
      { role: 'user', content: { type: 'text', text: `Greet ${name}${mood ? ` (${mood})` : ''}.` } },
      { role: 'assistant', content: { type: 'image', data: PNG, mimeType: 'image/png', annotations: { audience: ['user'] } } },
      { role: 'user', content: { type: 'resource', resource: { uri: 'docs://readme', mimeType: 'text/markdown', text: '# Docs' } } },
    ],
  }));
  mcp.registerPrompt('plain', { description: 'No arguments.' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'Plain.' } }] }));
  return mcp;
}

export async function startFeatureUpstream(): Promise<FeatureUpstream> {
  const reads: string[] = [];
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        await server(reads).connect(transport);
        await transport.handleRequest(req, res, text ? JSON.parse(text) : undefined);
      })().catch((error: unknown) => { if (!res.headersSent) res.writeHead(500).end(String(error)); });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    reads,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
