import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_NAME_PATTERN, type ToolTier } from './definition.ts';
import type { JsonObject, JsonSchema } from './json.ts';
import type { Manifest, ManifestTool, McpImport } from './manifest.ts';
import { closeMcpClient, connectMcpClient, listMcpTools, resolveHeaders, type McpClient, type McpConnectOptions } from './mcp-connect.ts';
import { upstreamUnavailable } from './mcp-failure.ts';

type Env = Readonly<Record<string, string | undefined>>;

export interface McpImportOptions {
  fetch?: McpConnectOptions['fetch'];
  /** How long connecting to and listing one server may take (default 30 s). */
  timeoutMs?: number;
}

/** One tool an import pinned, for reports. */
export interface PinnedMcpTool {
  server: string;
  /** toolgate's name. */
  name: string;
  /** The upstream's name. */
  tool: string;
  tier: ToolTier;
}

export interface McpImportResult {
  manifest: Manifest;
  pinned: PinnedMcpTool[];
}

/** An import that cannot be done as written; the message names the import and what to change. */
export class McpImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpImportError';
  }
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** The manifest with every `mcp_imports` entry's tools pinned into `tools` (see pinMcpImports). */
export async function importMcpTools(manifest: Manifest, env: Env, options: McpImportOptions = {}): Promise<Manifest> {
  return (await pinMcpImports(manifest, env, options)).manifest;
}

/**
 * Lists each import's server and pins the selected tools into `tools`: the upstream's
 * description and input schema as they are now, the import's tier, scopes and timeout, and an
 * `mcp` executor. Pins an earlier import made for the same server are replaced (importing again
 * refreshes them); any other tool with a pinned name is a collision. Uses fetch only.
 */
export async function pinMcpImports(manifest: Manifest, env: Env, options: McpImportOptions = {}): Promise<McpImportResult> {
  const imports = manifest.mcp_imports ?? [];
  const pins: ManifestTool[] = [];
  const pinnedBy = new Map<string, string>();
  for (const [index, spec] of imports.entries()) {
    const label = `mcp_imports[${index}] ("${spec.server}")`;
    const upstream = await listUpstreamTools(spec, env, options, label);
    for (const pin of pinsFor(spec, upstream, label)) {
      const earlier = pinnedBy.get(pin.name);
      if (earlier) throw new McpImportError(`${label}: tool name "${pin.name}" is also imported by ${earlier}; tell them apart with prefix or rename`);
      pinnedBy.set(pin.name, label);
      pins.push(pin);
    }
  }
  const servers = new Set(imports.map((spec) => spec.server));
  const kept = manifest.tools.filter((tool) => !isPinOf(tool, servers));
  kept.forEach((tool) => {
    const label = pinnedBy.get(tool.name);
    if (label) {
      throw new McpImportError(`${label}: tool name "${tool.name}" is already used by $.tools[${manifest.tools.indexOf(tool)}], which this import did not pin; rename one of them (prefix or rename in the import)`);
    }
  });
  return {
    manifest: { ...manifest, tools: [...kept, ...pins] },
    pinned: pins.map((pin) => ({ server: String(pin.executor.server), name: pin.name, tool: String(pin.executor.tool), tier: pin.tier as ToolTier })),
  };
}

/** A tool an earlier import of one of these servers pinned. */
function isPinOf(tool: ManifestTool, servers: Set<string>): boolean {
  return tool.executor.kind === 'mcp' && typeof tool.executor.server === 'string' && servers.has(tool.executor.server);
}

async function listUpstreamTools(spec: McpImport, env: Env, options: McpImportOptions, label: string): Promise<Tool[]> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let client: McpClient;
  try {
    client = await connectMcpClient(spec.url, resolveHeaders(spec.headers, env), { timeoutMs, fetch: options.fetch });
  } catch (error) {
    throw new McpImportError(`${label}: ${upstreamUnavailable(spec.url, error).message}`);
  }
  try {
    return await listMcpTools(client, timeoutMs);
  } catch (error) {
    throw new McpImportError(`${label}: tools/list failed: ${upstreamUnavailable(spec.url, error).message}`);
  } finally {
    await closeMcpClient(client);
  }
}

/** The pinned entries for one import's selection of the upstream's tools. */
function pinsFor(spec: McpImport, upstream: Tool[], label: string): ManifestTool[] {
  const byName = new Map(upstream.map((tool) => [tool.name, tool]));
  const selected = spec.tools === 'all' ? upstream.map((tool) => tool.name) : spec.tools;
  const missing = selected.filter((name) => !byName.has(name));
  if (missing.length > 0) {
    throw new McpImportError(`${label}: the server at ${spec.url} has no tool ${quoteList(missing)} (it has: ${quoteList([...byName.keys()]) || 'none'}); fix "tools"`);
  }
  for (const field of ['rename', 'tiers'] as const) {
    const stray = Object.keys(spec[field] ?? {}).filter((name) => !selected.includes(name));
    if (stray.length > 0) throw new McpImportError(`${label}: ${field} names ${quoteList(stray)}, which this import does not take (it takes: ${quoteList(selected) || 'none'}); use the upstream's names`);
  }
  return selected.map((name) => pinOne(spec, byName.get(name)!, label));
}

function pinOne(spec: McpImport, tool: Tool, label: string): ManifestTool {
  const name = spec.rename?.[tool.name] ?? `${spec.prefix ?? ''}${tool.name}`;
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new McpImportError(`${label}: upstream tool "${tool.name}" would be named "${name}", which is not a valid toolgate tool name (letters, digits, _ and -, at most 64); give it one with rename`);
  }
  const executor: ManifestTool['executor'] = { kind: 'mcp', server: spec.server, url: spec.url, tool: tool.name, ...(spec.headers ? { headers: { ...spec.headers } } : {}) };
  return {
    name,
    description: tool.description ?? tool.title ?? '',
    // A copy as it is now: a later change upstream reaches the manifest only through another import.
    input_schema: JSON.parse(JSON.stringify(tool.inputSchema)) as JsonSchema,
    ...(tool.outputSchema ? { output_schema: JSON.parse(JSON.stringify(tool.outputSchema)) as JsonSchema } : {}),
    tier: spec.tiers?.[tool.name] ?? spec.tier ?? 'write',
    ...(spec.scopes ? { scopes: [...spec.scopes] } : {}),
    ...(spec.timeout_ms !== undefined ? { timeout_ms: spec.timeout_ms } : {}),
    executor: executor as JsonObject & { kind: string },
  };
}

const quoteList = (names: string[]) => names.map((name) => `"${name}"`).join(', ');
