/** What the mcp module and its server worker say to each other (CPU requests as in http-protocol.ts). */

export interface McpWorkerData {
  apiKey: string;
}

/** The worker's first message: where each server listens. Each gateway has its own memory store. */
export interface McpServerPorts {
  /** The echo tool on the MCP SDK alone: low-level Server + transport per request, schema compiled once, body parsed by Hono. */
  directPort: number;
  /** McpServer (zod input shape) + transport per request, its JSON Schema validator built once, body read by the transport. */
  directMcpServerPort: number;
  /** The same, exactly as the SDK's stateless example: each McpServer builds its own Ajv. */
  directDocsPort: number;
  /** toolgate's POST /mcp, calls carrying toolgate's `_meta` thread and call id. */
  mcpGatewayPort: number;
  /** toolgate's POST /mcp, plain MCP calls (no `_meta`). */
  mcpPlainGatewayPort: number;
  /** toolgate's POST /v1/dispatch. */
  dispatchGatewayPort: number;
}
