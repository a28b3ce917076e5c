import { isJsonObject, type JsonObject } from './json.ts';
import { McpConnection } from './mcp-client/connection.ts';
import { closeLegacySession, discoverEra, openLegacySession } from './mcp-client/handshake.ts';
import { ASKING_CAPABILITIES } from './mcp-client/protocol.ts';
import { listUpstreamTools, type UpstreamTool } from './mcp-client/tool-list.ts';
import type { McpEndpoint } from './mcp-client/transport.ts';

/** What an import learns of an upstream: its era, its tools, and how each must be called. */
export interface UpstreamSurvey {
  /** The protocol revision to pin: the modern one it offers, or the legacy one it negotiated. */
  protocol: string;
  tools: SurveyedTool[];
  /** Whether it runs `tools/call` as a task when asked (2025-11-25 `tasks.requests.tools.call`). */
  callsAsTasks: boolean;
}

export interface SurveyedTool {
  tool: UpstreamTool;
  /** The client capabilities it is offered only with: declared upstream on each call. */
  needs?: JsonObject;
}

interface Listing {
  protocol: string;
  tools: UpstreamTool[];
  serverCapabilities: JsonObject;
}

/** How long ending an import's session may take. */
const CLOSE_MS = 5_000;

async function legacyListing(endpoint: McpEndpoint, capabilities: JsonObject, signal: AbortSignal): Promise<Listing> {
  const session = await openLegacySession(endpoint, capabilities, signal);
  try {
    const tools = await listUpstreamTools(new McpConnection(endpoint, { era: 'legacy', ...session }), signal);
    return { protocol: session.protocolVersion, tools, serverCapabilities: session.serverCapabilities };
  } finally {
    await closeLegacySession(endpoint, session, AbortSignal.timeout(CLOSE_MS));
  }
}

function callsAsTasks(capabilities: JsonObject): boolean {
  const tasks = capabilities.tasks;
  const requests = isJsonObject(tasks) ? tasks.requests : undefined;
  const tools = isJsonObject(requests) ? requests.tools : undefined;
  return isJsonObject(tools) && isJsonObject(tools.call);
}

/**
 * Asks the upstream its era (`server/discover`, else `initialize`) and lists its tools as a
 * client without capabilities sees them. When a wanted tool is missing there (or all are
 * wanted), lists again declaring sampling, elicitation and roots: tools only that listing has are
 * offered only to clients that can be asked, so calls declare those capabilities for them.
 */
export async function surveyUpstream(endpoint: McpEndpoint, wanted: 'all' | string[], signal: AbortSignal): Promise<UpstreamSurvey> {
  const discovery = await discoverEra(endpoint, signal);
  const list =
    discovery.era === 'modern'
      ? async (capabilities: JsonObject): Promise<Listing> => ({
          protocol: discovery.protocolVersion,
          tools: await listUpstreamTools(new McpConnection(endpoint, { era: 'modern', protocolVersion: discovery.protocolVersion, capabilities }), signal),
          serverCapabilities: discovery.serverCapabilities,
        })
      : (capabilities: JsonObject) => legacyListing(endpoint, capabilities, signal);
  const plain = await list({});
  const names = new Set(plain.tools.map((tool) => tool.name));
  const tools: SurveyedTool[] = plain.tools.map((tool) => ({ tool }));
  if (wanted === 'all' || wanted.some((name) => !names.has(name))) {
    const asking = await list({ ...ASKING_CAPABILITIES });
    for (const tool of asking.tools) if (!names.has(tool.name)) tools.push({ tool, needs: { ...ASKING_CAPABILITIES } });
  }
  return { protocol: plain.protocol, tools, callsAsTasks: discovery.era === 'legacy' && callsAsTasks(plain.serverCapabilities) };
}
