import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { callMcpTool, listMcpTools, mcpRequestScope, mcpServerInfo, type McpRequestContext } from './methods.ts';
import { answerStatelessMcpRequest, mcpAnswerResponse } from './stateless-request.ts';

export type { McpRequestContext } from './methods.ts';

/**
 * One stateless MCP server per request (the official SDK's Server over its Web-standard
 * Streamable HTTP transport, JSON responses, no session): `tools/list` shows the tenant's
 * active manifest and profile, `tools/call` goes through the same pipeline as /v1/dispatch.
 * The interpreted JSON Schema validator is used so nothing needs eval on Workers.
 */
export function createMcpServer(context: McpRequestContext): Server {
  const scope = mcpRequestScope(context);
  const { info, capabilities, instructions } = mcpServerInfo(context.runtime);
  const server = new Server(info, { capabilities, jsonSchemaValidator: new CfWorkerJsonSchemaValidator(), instructions });
  server.setRequestHandler(ListToolsRequestSchema, (request, extra) => listMcpTools(scope, extra.requestId, request.params?._meta));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callMcpTool(scope, extra.requestId, request.params));
  return server;
}

/**
 * Answers one HTTP request of the Streamable HTTP transport (POST; GET/DELETE are 405 without
 * sessions). The common single messages are answered directly (see stateless-request.ts);
 * everything else goes through the SDK.
 */
export async function handleMcpRequest(request: Request, context: McpRequestContext, parsedBody: unknown): Promise<Response> {
  const direct = answerStatelessMcpRequest(request, parsedBody, context);
  return direct ? mcpAnswerResponse(await direct) : handleMcpRequestWithSdk(request, context, parsedBody);
}

/** The SDK's Server and transport, made for this one request and closed after it. */
export async function handleMcpRequestWithSdk(request: Request, context: McpRequestContext, parsedBody: unknown): Promise<Response> {
  const server = createMcpServer(context);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody });
  } finally {
    await server.close();
  }
}
