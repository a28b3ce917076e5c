import { isJsonObject, type JsonObject } from '../json.ts';
import { McpConnection } from '../mcp-client/connection.ts';
import { listUpstreamPrompts, listUpstreamResources, listUpstreamResourceTemplates, type UpstreamPrompt, type UpstreamResource, type UpstreamResourceTemplate } from '../mcp-client/feature-list.ts';
import { closeLegacySession, discoverEra, openLegacySession, type Discovery } from '../mcp-client/handshake.ts';
import { ASKING_CAPABILITIES } from '../mcp-client/protocol.ts';
import { listUpstreamTools, type UpstreamTool } from '../mcp-client/tool-list.ts';
import type { McpEndpoint } from '../mcp-client/transport.ts';

/** What an import learns of an upstream: its era, its tools (and resources, templates, prompts), and how each must be called. */
export interface UpstreamSurvey {
  /** The protocol revision to pin: the modern one it offers, or the legacy one it negotiated. */
  protocol: string;
  tools: SurveyedTool[];
  /** Whether it runs `tools/call` as a task when asked (2025-11-25 `tasks.requests.tools.call`). */
  callsAsTasks: boolean;
  /** Listed only when the import asks for them; empty when the server declares no such capability. */
  resources: UpstreamResource[];
  resourceTemplates: UpstreamResourceTemplate[];
  prompts: UpstreamPrompt[];
  /** It answers `completion/complete` (it declared `completions`). */
  completions: boolean;
}

export interface SurveyedTool {
  tool: UpstreamTool;
  /** The client capabilities it is offered only with: declared upstream on each call. */
  needs?: JsonObject;
}

/** What an import asks for: tools ("all" or names; none when absent), and whether it takes resources, templates, prompts. */
export interface SurveyWants {
  tools?: 'all' | string[];
  resources: boolean;
  resourceTemplates: boolean;
  prompts: boolean;
}

interface Listing {
  tools: UpstreamTool[];
  resources: UpstreamResource[];
  resourceTemplates: UpstreamResourceTemplate[];
  prompts: UpstreamPrompt[];
}

type Listed = Listing & { protocol: string; serverCapabilities: JsonObject };

/** How long ending an import's session may take. */
const CLOSE_MS = 5_000;

/** Runs `list` on a connection to the upstream in its era (a legacy one on a session opened for it, then ended). */
async function withConnection(discovery: Discovery, endpoint: McpEndpoint, capabilities: JsonObject, signal: AbortSignal, list: (connection: McpConnection, serverCapabilities: JsonObject) => Promise<Listing>): Promise<Listed> {
  if (discovery.era === 'modern') {
    const connection = new McpConnection(endpoint, { era: 'modern', protocolVersion: discovery.protocolVersion, capabilities });
    return { ...(await list(connection, discovery.serverCapabilities)), protocol: discovery.protocolVersion, serverCapabilities: discovery.serverCapabilities };
  }
  const session = await openLegacySession(endpoint, capabilities, signal);
  try {
    const connection = new McpConnection(endpoint, { era: 'legacy', ...session });
    return { ...(await list(connection, session.serverCapabilities)), protocol: session.protocolVersion, serverCapabilities: session.serverCapabilities };
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

/** The resources, templates and prompts wanted, from a server that declares them (others have none). */
async function listFeatures(connection: McpConnection, capabilities: JsonObject, wants: SurveyWants, signal: AbortSignal): Promise<Omit<Listing, 'tools'>> {
  const offersResources = isJsonObject(capabilities.resources);
  return {
    resources: wants.resources && offersResources ? await listUpstreamResources(connection, signal) : [],
    resourceTemplates: wants.resourceTemplates && offersResources ? await listUpstreamResourceTemplates(connection, signal) : [],
    prompts: wants.prompts && isJsonObject(capabilities.prompts) ? await listUpstreamPrompts(connection, signal) : [],
  };
}

/**
 * Asks the upstream its era (`server/discover`, else `initialize`) and lists what the import
 * wants as a client without capabilities sees it. When a wanted tool is missing there (or all
 * are wanted), lists the tools again declaring sampling, elicitation and roots: tools only that
 * listing has are offered only to clients that can be asked, so calls declare those capabilities for them.
 */
export async function surveyUpstream(endpoint: McpEndpoint, wants: SurveyWants, signal: AbortSignal): Promise<UpstreamSurvey> {
  const discovery = await discoverEra(endpoint, signal);
  const wanted = wants.tools;
  const plain = await withConnection(discovery, endpoint, {}, signal, async (connection, capabilities) => ({
    tools: wanted ? await listUpstreamTools(connection, signal) : [],
    ...(await listFeatures(connection, capabilities, wants, signal)),
  }));
  const names = new Set(plain.tools.map((tool) => tool.name));
  const tools: SurveyedTool[] = plain.tools.map((tool) => ({ tool }));
  if (wanted === 'all' || wanted?.some((name) => !names.has(name))) {
    const asking = await withConnection(discovery, endpoint, { ...ASKING_CAPABILITIES }, signal, async (connection) => ({ tools: await listUpstreamTools(connection, signal), resources: [], resourceTemplates: [], prompts: [] }));
    for (const tool of asking.tools) if (!names.has(tool.name)) tools.push({ tool, needs: { ...ASKING_CAPABILITIES } });
  }
  return {
    protocol: plain.protocol,
    tools,
    callsAsTasks: discovery.era === 'legacy' && callsAsTasks(plain.serverCapabilities),
    resources: plain.resources,
    resourceTemplates: plain.resourceTemplates,
    prompts: plain.prompts,
    completions: isJsonObject(plain.serverCapabilities.completions),
  };
}
