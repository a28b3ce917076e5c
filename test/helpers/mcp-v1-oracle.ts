import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { mcpServerInfo } from '../../lib/mcp/capabilities.ts';
import { callMcpTool, listMcpTools, mcpRequestScope, type McpRequestContext } from '../../lib/mcp/methods.ts';

/**
 * toolgate's MCP server as it was built on the official SDK v1 (its Server over its Web-standard
 * Streamable HTTP transport, JSON responses, no session, the same tools/list and tools/call
 * handlers, `logging/setLevel` and resource subscriptions taken and nothing kept): the oracle
 * toolgate's own legacy path is compared with, byte for byte.
 */
export async function answerWithSdkV1(request: Request, context: McpRequestContext, parsedBody: unknown): Promise<Response> {
  const scope = mcpRequestScope(context);
  const runtime = context.runtime;
  const instructions = runtime.manifest.description;
  const server = new Server(mcpServerInfo(runtime), { capabilities: { tools: {}, logging: {} }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator(), instructions });
  server.setRequestHandler(ListToolsRequestSchema, (message, extra) => listMcpTools(scope, extra.requestId, message.params?._meta));
  server.setRequestHandler(CallToolRequestSchema, (message, extra) => callMcpTool(scope, extra.requestId, message.params));
  server.setRequestHandler(SubscribeRequestSchema, () => ({}));
  server.setRequestHandler(UnsubscribeRequestSchema, () => ({}));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody });
  } finally {
    await server.close();
  }
}
