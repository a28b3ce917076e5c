import type { ToolDefinition } from '../definition.ts';
import type { JsonSchema } from '../json.ts';
import type { Manifest, ManifestPrompt, ManifestResource, ManifestResourceTemplate, McpSource, PinnedFeatureRules } from '../manifest/manifest.ts';
import { McpFeatureExecutor, type FeatureRequest } from '../executors/mcp-feature.ts';
import type { UpstreamAccess } from '../executors/mcp-upstream.ts';
import { ToolRegistry } from '../registry.ts';
import { uriTemplateMatcher } from './uri-template.ts';

/**
 * A tenant's pinned upstream resources, resource templates and prompts, ready to serve: each is
 * an entry of a registry of its own (never listed as a tool, never callable as one), named for
 * what it is (`resource:<uri>`, `resource_template:<uri template>`, `prompt:<name>`, and
 * `completion:prompt:<name>` / `completion:resource_template:<uri template>` where its upstream
 * completes), so calling it runs the dispatch pipeline: its scopes, the policy (rules can name
 * these entries), its timeout, audit under that name.
 */

/** Text an answer may hold, uncut: reads are bounded by what toolgate reads of an answer (16 MiB), not cut for a model. */
const UNCUT_CHARS = 16 * 1024 * 1024;

const URI_SCHEMA: JsonSchema = { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'], additionalProperties: false };
const COMPLETION_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    argument: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } }, required: ['name', 'value'] },
    context: { type: 'object', properties: { arguments: { type: 'object', additionalProperties: { type: 'string' } } } },
  },
  required: ['argument'],
  additionalProperties: false,
};

/** A prompt's arguments as a schema: strings, the required ones required; others the upstream may take are strings too. */
function promptSchema(prompt: ManifestPrompt): JsonSchema {
  const args = prompt.arguments ?? [];
  const properties = Object.fromEntries(args.map((arg) => [arg.name, { type: 'string', ...(arg.description !== undefined ? { description: arg.description } : {}) }]));
  const required = args.filter((arg) => arg.required).map((arg) => arg.name);
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: { type: 'string' } };
}

function definition(name: string, description: string, input_schema: JsonSchema, rules: PinnedFeatureRules): ToolDefinition {
  return {
    name,
    description,
    input_schema,
    tier: rules.tier ?? 'read',
    scopes: rules.scopes ?? [],
    tags: [],
    ...(rules.timeout_ms !== undefined ? { timeout_ms: rules.timeout_ms } : {}),
    idempotency: 'none',
    output: { max_chars: UNCUT_CHARS },
  };
}

/** What a `completion/complete` names: a prompt, or a resource template by its URI template. */
export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

export class McpFeatures {
  readonly resources: readonly ManifestResource[];
  readonly templates: readonly ManifestResourceTemplate[];
  readonly prompts: readonly ManifestPrompt[];
  /** Whether the tenant offers any resources (static or templated), prompts, completions (an upstream of one completes): its MCP capabilities. */
  readonly offers: { resources: boolean; prompts: boolean; completions: boolean };
  /** The entries, by name: what the pipeline looks calls up in. */
  readonly registry = new ToolRegistry();
  readonly #matchers: Array<{ matches(uri: string): boolean; name: string; upstream: string }> = [];
  /** Each pinned resource's upstream, by URI. */
  readonly #resourceUpstreams = new Map<string, string>();
  readonly #access: UpstreamAccess;

  constructor(manifest: Manifest, access: UpstreamAccess) {
    this.resources = manifest.resources ?? [];
    this.templates = manifest.resource_templates ?? [];
    this.prompts = manifest.prompts ?? [];
    this.#access = access;
    const completes = [...this.prompts, ...this.templates].some((entry) => entry.source.completions === true);
    this.offers = { resources: this.resources.length + this.templates.length > 0, prompts: this.prompts.length > 0, completions: completes };
    for (const resource of this.resources) this.#resourceUpstreams.set(resource.uri, resource.source.url);
    for (const resource of this.resources) this.#add(`resource:${resource.uri}`, resource.description ?? resource.name, URI_SCHEMA, resource, resource.source, { method: 'resources/read' });
    for (const template of this.templates) {
      const name = `resource_template:${template.uri_template}`;
      this.#add(name, template.description ?? template.name, URI_SCHEMA, template, template.source, { method: 'resources/read' });
      const matcher = uriTemplateMatcher(template.uri_template);
      if (matcher.ok) this.#matchers.push({ matches: matcher.matches, name, upstream: template.source.url });
      if (template.source.completions) this.#add(`completion:${name}`, `Completes ${template.name}`, COMPLETION_SCHEMA, template, template.source, { method: 'completion/complete', ref: { type: 'ref/resource', uri: template.uri_template } });
    }
    for (const prompt of this.prompts) {
      const { prompt: upstreamName, ...source } = prompt.source;
      this.#add(`prompt:${prompt.name}`, prompt.description ?? prompt.name, promptSchema(prompt), prompt, source, { method: 'prompts/get', prompt: upstreamName });
      if (source.completions) this.#add(`completion:prompt:${prompt.name}`, `Completes ${prompt.name}`, COMPLETION_SCHEMA, prompt, source, { method: 'completion/complete', ref: { type: 'ref/prompt', name: upstreamName } });
    }
  }


  /**
   * The entry that reads `uri`: its pinned resource, else the first pinned template matching it.
   * When pins of several upstreams match it (a resource, templates), which one the URI belongs to
   * is no guess of toolgate's: `ambiguous` names them (one upstream's catch-all template `{+uri}`,
   * or a resource it lists under another's URI, must not learn and answer another's reads).
   */
  resourceEntry(uri: string): string | { ambiguous: string[] } | undefined {
    const pinned = this.#resourceUpstreams.get(uri);
    const matching = [...(pinned !== undefined ? [{ name: `resource:${uri}`, upstream: pinned }] : []), ...this.#matchers.filter((matcher) => matcher.matches(uri))];
    if (new Set(matching.map((matcher) => matcher.upstream)).size > 1) return { ambiguous: matching.map((matcher) => matcher.name) };
    return matching[0]?.name;
  }

  promptEntry(name: string): string | undefined {
    const entry = `prompt:${name}`;
    return this.registry.has(entry) ? entry : undefined;
  }

  /**
   * What completes an argument of `ref`: its entry when the upstream completes, `null` when the
   * prompt or template is pinned but its upstream does not complete, undefined when nothing is pinned.
   */
  completionEntry(ref: CompletionRef): string | null | undefined {
    const target = ref.type === 'ref/prompt' ? this.promptEntry(ref.name) : this.templates.some((t) => t.uri_template === ref.uri) ? `resource_template:${ref.uri}` : undefined;
    if (target === undefined) return undefined;
    const entry = `completion:${target}`;
    return this.registry.has(entry) ? entry : null;
  }

  #add(name: string, description: string, schema: JsonSchema, rules: PinnedFeatureRules, source: McpSource, request: FeatureRequest): void {
    this.registry.register(new McpFeatureExecutor(definition(name, description, schema, rules), source, request, this.#access), { replace: true });
  }
}

/** The tenant's features, or none when its manifest pins no resource, template or prompt (nothing is built). */
export function mcpFeaturesOf(manifest: Manifest, access: UpstreamAccess): McpFeatures | undefined {
  const pinned = (manifest.resources?.length ?? 0) + (manifest.resource_templates?.length ?? 0) + (manifest.prompts?.length ?? 0);
  return pinned > 0 ? new McpFeatures(manifest, access) : undefined;
}
