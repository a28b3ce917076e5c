import type { Fetch } from '../../egress/fetch.ts';
import { TOOL_NAME_PATTERN, type ToolTier } from '../definition.ts';
import type { JsonObject, JsonSchema } from '../json.ts';
import type { McpEndpoint } from '../mcp-client/transport.ts';
import type { Manifest, ManifestPrompt, ManifestResource, ManifestResourceTemplate, ManifestTool, McpImport, McpSource } from '../manifest/manifest.ts';
import { isJsonObject } from '../json.ts';
import { resolveHeaders } from './endpoint.ts';
import { upstreamUnavailable } from './failure.ts';
import { featurePinsFor } from './import-features.ts';
import { McpImportError, type SkippedMcpTool } from './import-errors.ts';
import { surveyUpstream, type SurveyedTool, type UpstreamSurvey } from './survey.ts';

type Env = Readonly<Record<string, string | undefined>>;

export interface McpImportOptions {
  fetch?: Fetch;
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
  /** Resources, resource templates and prompts pinned, per server, for reports. */
  pinnedFeatures: Array<{ server: string; resources: number; resource_templates: number; prompts: number }>;
  skipped: SkippedMcpTool[];
}

export { McpImportError, type SkippedMcpTool };

const DEFAULT_TIMEOUT_MS = 30_000;

/** The manifest with every `mcp_imports` entry's tools pinned into `tools` (see pinMcpImports). */
export async function importMcpTools(manifest: Manifest, env: Env, options: McpImportOptions = {}): Promise<Manifest> {
  return (await pinMcpImports(manifest, env, options)).manifest;
}

/**
 * Lists each import's server and pins the selected tools into `tools`: the upstream's
 * description and input schema as they are now, the import's tier, scopes and timeout, and an
 * `mcp` executor; likewise its resources, resource templates and prompts into their sections
 * (mcp-import-features.ts). Pins an earlier import made for the same server are replaced
 * (importing again refreshes them); anything else with a pinned name, URI or URI template is a
 * collision. Uses fetch only.
 */
export async function pinMcpImports(manifest: Manifest, env: Env, options: McpImportOptions = {}): Promise<McpImportResult> {
  const imports = manifest.mcp_imports ?? [];
  const pins: ManifestTool[] = [];
  const features = { resources: [] as ManifestResource[], resource_templates: [] as ManifestResourceTemplate[], prompts: [] as ManifestPrompt[] };
  const pinnedFeatures: McpImportResult['pinnedFeatures'] = [];
  const skipped: SkippedMcpTool[] = [];
  const pinnedBy = new Map<string, string>();
  for (const [index, spec] of imports.entries()) {
    const label = `mcp_imports[${index}] ("${spec.server}")`;
    const survey = await surveyOf(spec, env, options, label);
    const selection = pinsFor(spec, survey, label);
    skipped.push(...selection.skipped.map((skip) => ({ server: spec.server, ...skip })));
    for (const pin of selection.pins) {
      const earlier = pinnedBy.get(pin.name);
      if (earlier) throw new McpImportError(`${label}: tool name "${pin.name}" is also imported by ${earlier}; tell them apart with prefix or rename`);
      pinnedBy.set(pin.name, label);
      pins.push(pin);
    }
    const found = featurePinsFor(spec, survey, label);
    skipped.push(...found.skipped);
    features.resources.push(...found.resources);
    features.resource_templates.push(...found.resource_templates);
    features.prompts.push(...found.prompts);
    pinnedFeatures.push({ server: spec.server, resources: found.resources.length, resource_templates: found.resource_templates.length, prompts: found.prompts.length });
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
    manifest: { ...manifest, tools: [...kept, ...pins], ...mergedFeatures(manifest, features, servers) },
    pinned: pins.map((pin) => ({ server: String(pin.executor.server), name: pin.name, tool: String(pin.executor.tool), tier: pin.tier as ToolTier })),
    pinnedFeatures,
    skipped,
  };
}

type FeatureSections = Pick<Manifest, 'resources' | 'resource_templates' | 'prompts'>;

/** Each section as the manifest had it without the earlier pins of these servers, plus the new pins; a section neither had nor gets stays absent. */
function mergedFeatures(manifest: Manifest, pins: Required<FeatureSections>, servers: Set<string>): FeatureSections {
  const resources = mergeSection('resources', manifest.resources, pins.resources, (entry) => entry.uri, servers);
  const resource_templates = mergeSection('resource_templates', manifest.resource_templates, pins.resource_templates, (entry) => entry.uri_template, servers);
  const prompts = mergeSection('prompts', manifest.prompts, pins.prompts, (entry) => entry.name, servers);
  return { ...(resources ? { resources } : {}), ...(resource_templates ? { resource_templates } : {}), ...(prompts ? { prompts } : {}) };
}

/** One section merged; a key (URI, URI template, prompt name) pinned twice, or already held by an entry these imports did not pin, stops the import. */
function mergeSection<T extends { source: McpSource }>(section: string, existing: T[] | undefined, added: T[], keyOf: (entry: T) => string, servers: Set<string>): T[] | undefined {
  if (!existing?.length && added.length === 0) return undefined;
  const kept = (existing ?? []).filter((entry) => entry.source.server === undefined || !servers.has(entry.source.server));
  const holders = new Map(kept.map((entry) => [keyOf(entry), `$.${section}[${existing!.indexOf(entry)}], which these imports did not pin`]));
  for (const entry of added) {
    const holder = holders.get(keyOf(entry));
    if (holder) throw new McpImportError(`mcp_imports ("${entry.source.server}"): ${section} entry ${JSON.stringify(keyOf(entry))} is also pinned by ${holder}; leave one out${section === 'prompts' ? ' or tell them apart with prompt_prefix' : ''}`);
    holders.set(keyOf(entry), `the import "${entry.source.server}"`);
  }
  return [...kept, ...added];
}

/** A tool an earlier import of one of these servers pinned. */
function isPinOf(tool: ManifestTool, servers: Set<string>): boolean {
  return tool.executor.kind === 'mcp' && typeof tool.executor.server === 'string' && servers.has(tool.executor.server);
}

async function surveyOf(spec: McpImport, env: Env, options: McpImportOptions, label: string): Promise<UpstreamSurvey> {
  try {
    const endpoint = { url: spec.url, headers: resolveHeaders(spec.headers, env), fetch: options.fetch ?? ((input, init) => fetch(input, init)) } satisfies McpEndpoint;
    const wants = { tools: spec.tools, resources: spec.resources !== undefined, resourceTemplates: spec.resource_templates !== undefined, prompts: spec.prompts !== undefined };
    return await surveyUpstream(endpoint, wants, AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS));
  } catch (error) {
    throw new McpImportError(`${label}: ${upstreamUnavailable(spec.url, error).message}`);
  }
}

/** Why toolgate cannot call a tool, if it cannot: one that runs only as a task, on an upstream that takes no task-augmented calls. */
function uncallable(surveyed: SurveyedTool, survey: UpstreamSurvey): string | undefined {
  const execution = surveyed.tool.execution;
  if (!isJsonObject(execution) || execution.taskSupport !== 'required' || survey.callsAsTasks) return undefined;
  return 'it runs only as a task (execution.taskSupport "required"), and the server does not take tools/call as a task (no tasks.requests.tools.call capability)';
}

/** The pinned entries for one import's selection of the upstream's tools, and the tools "all" left out. */
function pinsFor(spec: McpImport, survey: UpstreamSurvey, label: string): { pins: ManifestTool[]; skipped: Array<{ tool: string; reason: string }> } {
  const byName = new Map(survey.tools.map((surveyed) => [surveyed.tool.name, surveyed]));
  const skipped: Array<{ tool: string; reason: string }> = [];
  const selected = spec.tools === 'all' ? survey.tools.map((surveyed) => surveyed.tool.name) : (spec.tools ?? []);
  const missing = selected.filter((name) => !byName.has(name));
  if (missing.length > 0) {
    throw new McpImportError(`${label}: the server at ${spec.url} has no tool ${quoteList(missing)} (it has: ${quoteList([...byName.keys()]) || 'none'}); fix "tools"`);
  }
  for (const field of ['rename', 'tiers'] as const) {
    const stray = Object.keys(spec[field] ?? {}).filter((name) => !selected.includes(name));
    if (stray.length > 0) throw new McpImportError(`${label}: ${field} names ${quoteList(stray)}, which this import does not take (it takes: ${quoteList(selected) || 'none'}); use the upstream's names`);
  }
  const pins: ManifestTool[] = [];
  for (const name of selected) {
    const surveyed = byName.get(name)!;
    const reason = uncallable(surveyed, survey);
    if (reason && spec.tools !== 'all') throw new McpImportError(`${label}: toolgate cannot call upstream tool "${name}": ${reason}; leave it out of "tools"`);
    if (reason) skipped.push({ tool: name, reason });
    else pins.push(pinOne(spec, surveyed, survey, label));
  }
  return { pins, skipped };
}

/** A copy as it is now: a later change upstream reaches the manifest only through another import. */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function pinOne(spec: McpImport, { tool, needs }: SurveyedTool, survey: UpstreamSurvey, label: string): ManifestTool {
  const name = spec.rename?.[tool.name] ?? `${spec.prefix ?? ''}${tool.name}`;
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new McpImportError(`${label}: upstream tool "${tool.name}" would be named "${name}", which is not a valid toolgate tool name (letters, digits, _ and -, at most 64); give it one with rename`);
  }
  const asTask = isJsonObject(tool.execution) && tool.execution.taskSupport === 'required';
  const executor: JsonObject = {
    kind: 'mcp',
    server: spec.server,
    url: spec.url,
    tool: tool.name,
    ...(spec.headers ? { headers: { ...spec.headers } } : {}),
    protocol: survey.protocol,
    ...(needs ? { client_capabilities: copy(needs) } : {}),
    ...(asTask ? { task_support: 'required' } : {}),
  };
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    name,
    description: text(tool.description) ?? text(tool.title) ?? '',
    input_schema: copy(tool.inputSchema) as JsonSchema,
    ...(isJsonObject(tool.outputSchema) ? { output_schema: copy(tool.outputSchema) as JsonSchema } : {}),
    tier: spec.tiers?.[tool.name] ?? spec.tier ?? 'write',
    ...(spec.scopes ? { scopes: [...spec.scopes] } : {}),
    ...(spec.timeout_ms !== undefined ? { timeout_ms: spec.timeout_ms } : {}),
    executor: executor as JsonObject & { kind: string },
  };
}

const quoteList = (names: string[]) => names.map((name) => `"${name}"`).join(', ');
