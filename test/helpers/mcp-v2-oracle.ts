import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

/**
 * The official SDK v2's dual-era endpoint (a devDependency) serving one `echo` tool: the oracle
 * toolgate's 2026-07-28 answers are compared with where they must agree (the transport's
 * rejections: status, code, and for most cells the exact bytes).
 */
export function sdkV2Endpoint(): (request: Request) => Promise<Response> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'oracle', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.registerTool('echo', { description: 'Echoes.', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    return server;
  });
  return (request) => handler.fetch(request);
}
