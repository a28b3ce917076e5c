/**
 * The servers of the mcp benchmark, run in a worker thread (as http-server-worker's): the echo
 * tool served by the MCP SDK alone, three ways, and toolgate's gateways.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaType, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
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

/** toolgate's built-in echo schema. */
const ECHO_INPUT: JsonSchemaType = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false };

/**
 * The leanest SDK server: the low-level Server toolgate itself uses, one tools/call handler
 * checking the arguments against the schema compiled once. No tools/list handler: the calls
 * never ask, and registering one would cost a map entry, nothing measurable.
 */
function lowLevelServer(): () => Server {
  const validator = new CfWorkerJsonSchemaValidator();
  const checkInput = validator.getValidator<{ text: string }>(ECHO_INPUT);
  return () => {
    const server = new Server({ name: 'bench-direct', version: '1.0.0' }, { capabilities: { tools: {} }, jsonSchemaValidator: validator });
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      if (request.params.name !== 'echo') throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
      const checked = checkInput(request.params.arguments ?? {});
      if (!checked.valid) return { content: [{ type: 'text', text: checked.errorMessage }], isError: true };
      return { content: [{ type: 'text', text: checked.data.text }] };
    });
    return server;
  };
}

/**
 * The SDK's own examples: McpServer with a zod input shape, made per request. Without
 * `validator`, each Server constructs the SDK's default (a new Ajv with formats, a few hundred
 * µs), as the examples do; given one, that work is done once for the process.
 */
function highLevelServer(validator?: jsonSchemaValidator): () => McpServer {
  return () => {
    const server = new McpServer({ name: 'bench-direct', version: '1.0.0' }, validator ? { jsonSchemaValidator: validator } : {});
    server.registerTool('echo', { description: 'Returns the given text unchanged.', inputSchema: { text: z.string() } }, ({ text }) => ({
      content: [{ type: 'text', text }],
    }));
    return server;
  };
}

/**
 * The SDK's stateless recipe on Hono: a new server and transport per request, JSON responses.
 * With `parseBody`, Hono parses the body and hands it over, as toolgate's /mcp route does:
 * left to itself the transport reads `request.body` as a web stream, which @hono/node-server
 * must build from the Node request, a cost its `text()`/`json()` avoid.
 */
function directApp(serverFor: () => Server | McpServer, parseBody: boolean): Hono {
  const app = new Hono();
  app.post('/mcp', async (c) => {
    const parsedBody: unknown = parseBody ? await c.req.json() : undefined;
    const server = serverFor();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw, { parsedBody });
    } finally {
      await server.close();
    }
  });
  return app;
}

async function start(): Promise<void> {
  const { apiKey } = workerData as McpWorkerData;
  const ports: McpServerPorts = {
    directPort: await listen(directApp(lowLevelServer(), true).fetch),
    directMcpServerPort: await listen(directApp(highLevelServer(new AjvJsonSchemaValidator()), false).fetch),
    directDocsPort: await listen(directApp(highLevelServer(), false).fetch),
    mcpGatewayPort: await listen(await demoGateway(apiKey)),
    mcpPlainGatewayPort: await listen(await demoGateway(apiKey)),
    dispatchGatewayPort: await listen(await demoGateway(apiKey)),
  };
  parentPort?.postMessage(ports);
  answerCpuRequests();
}

await start();
