/**
 * The servers of the mcp benchmark, run in a worker thread (as http-server-worker's): the echo
 * tool served by the MCP SDK alone, and toolgate's gateways.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { Hono } from 'hono';
import { parentPort, workerData } from 'node:worker_threads';
// zod is the MCP SDK's peer dependency and how its McpServer takes a tool's input schema; the
// SDK's own examples import it this way.
import * as z from 'zod/v4';
import { useNodeCrypto } from '../lib/cli/node-crypto.ts';
import { answerCpuRequests, demoGateway, listen } from './bench-servers.ts';
import type { McpServerPorts, McpWorkerData } from './mcp-protocol.ts';

// As on the Node entrypoints: node:crypto's synchronous SHA-256.
useNodeCrypto();

/** toolgate's built-in echo, as a plain SDK server would declare it. */
function echoServer(validator: jsonSchemaValidator | undefined): McpServer {
  const server = new McpServer({ name: 'bench-direct', version: '1.0.0' }, validator ? { jsonSchemaValidator: validator } : {});
  server.registerTool('echo', { description: 'Returns the given text unchanged.', inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
}

/**
 * The SDK's stateless recipe on Hono: a new server and transport per request, JSON responses.
 * Without a validator, each Server constructs the SDK's default (a new Ajv with formats, a few
 * hundred µs), which its examples do; given one, that work is done once for the process.
 */
function directApp(validator?: jsonSchemaValidator): Hono {
  const app = new Hono();
  app.post('/mcp', async (c) => {
    const server = echoServer(validator);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });
  return app;
}

async function start(): Promise<void> {
  const { apiKey } = workerData as McpWorkerData;
  const ports: McpServerPorts = {
    directPort: await listen(directApp(new AjvJsonSchemaValidator()).fetch),
    directDocsPort: await listen(directApp().fetch),
    mcpGatewayPort: await listen(await demoGateway(apiKey)),
    mcpPlainGatewayPort: await listen(await demoGateway(apiKey)),
    dispatchGatewayPort: await listen(await demoGateway(apiKey)),
  };
  parentPort?.postMessage(ports);
  answerCpuRequests();
}

await start();
