import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { legacyCapabilities, mcpServerInfo } from '../../lib/mcp/capabilities.ts';
import { callMcpTool, listMcpTools, mcpRequestScope, type McpRequestContext } from '../../lib/mcp/methods.ts';

/**
 * toolgate's MCP server as it was built on the official SDK v1 (its Server over its Web-standard
 * Streamable HTTP transport, JSON responses, no session, the same capabilities and tools/list and
 * tools/call handlers, `logging/setLevel` and resource subscriptions taken and nothing kept): the
 * oracle toolgate's own legacy path is compared with, byte for byte. It keeps no tasks: toolgate's
 * answers to task requests are checked with the SDK's client instead (test/mcp/tasks-legacy.test.ts).
 */
export async function answerWithSdkV1(request: Request, context: McpRequestContext, parsedBody: unknown): Promise<Response> {
  const scope = mcpRequestScope(context);
  const runtime = context.runtime;
  const instructions = runtime.manifest.description;
  const server = new Server(mcpServerInfo(runtime), { capabilities: legacyCapabilities(runtime), jsonSchemaValidator: new CfWorkerJsonSchemaValidator(), instructions });
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
