import { isShowableIconSource } from '../content-read.ts';
import { isJsonObject, type JsonObject } from '../json.ts';
import type { ManifestPrompt, ManifestResource, ManifestResourceTemplate, McpImport, McpSource, PinnedFeatureInfo, PromptArgument } from '../manifest/manifest.ts';
import { McpImportError, type SkippedMcpTool } from './import-errors.ts';
import type { UpstreamSurvey } from './survey.ts';
import { uriTemplateMatcher } from './uri-template.ts';

/**
 * An import's resources, resource templates and prompts, pinned as the upstream lists them now:
 * MCP's descriptive fields copied (a later change upstream reaches the manifest only through
 * another import), the import's scopes and timeout, and the upstream as their `source`. URIs are
 * never rewritten (tool results name them); prompts take `prompt_prefix`.
 */
export interface FeaturePins {
  resources: ManifestResource[];
  resource_templates: ManifestResourceTemplate[];
  prompts: ManifestPrompt[];
  /** What "all" left out because toolgate cannot serve it, for reports. */
  skipped: SkippedMcpTool[];
}

/** Characters of a URI, a URI template and a prompt name (the manifest schema's bounds). */
const MAX_URI_CHARS = 8192;
const MAX_PROMPT_NAME_CHARS = 256;

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** MCP's descriptive fields of a listed entry, those of the right type. */
function info(entry: JsonObject): PinnedFeatureInfo {
  // Only icons a client may be handed, as a tool result's links keep (content-read.ts).
  const icons = Array.isArray(entry.icons) ? entry.icons.filter((icon): icon is JsonObject => isJsonObject(icon) && isShowableIconSource(icon.src)) : [];
  return {
    ...(text(entry.title) !== undefined ? { title: text(entry.title) } : {}),
    ...(text(entry.description) !== undefined ? { description: text(entry.description) } : {}),
    ...(icons.length > 0 ? { icons: copy(icons) } : {}),
    ...(isJsonObject(entry.annotations) ? { annotations: copy(entry.annotations) } : {}),
  };
}

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** The import's rules for what it pins: scopes and timeout (the tier stays `read`: these are reads). */
function rules(spec: McpImport) {
  return { ...(spec.scopes ? { scopes: [...spec.scopes] } : {}), ...(spec.timeout_ms !== undefined ? { timeout_ms: spec.timeout_ms } : {}) };
}

/**
 * The keys an import selects from what the upstream lists: all of them, or those it names, each
 * of which must be there.
 */
function selected(wanted: 'all' | string[] | undefined, available: string[], what: string, spec: McpImport, label: string): string[] {
  if (wanted === undefined) return [];
  if (wanted === 'all') return available;
  const missing = wanted.filter((key) => !available.includes(key));
  if (missing.length > 0) {
    const has = available.map((key) => JSON.stringify(key)).join(', ') || 'none';
    throw new McpImportError(`${label}: the server at ${spec.url} has no ${what} ${missing.map((key) => JSON.stringify(key)).join(', ')} (it has: ${has})`);
  }
  return wanted;
}

/** Why toolgate cannot serve an entry, if it cannot; for a named one the import stops, for "all" it is left out. */
function refuse(spec: McpImport, wanted: 'all' | string[] | undefined, key: string, what: string, reason: string | undefined, label: string, skipped: SkippedMcpTool[]): boolean {
  if (reason === undefined) return false;
  if (wanted !== 'all') throw new McpImportError(`${label}: toolgate cannot serve ${what} ${JSON.stringify(key.slice(0, 200))}: ${reason}; leave it out`);
  skipped.push({ server: spec.server, tool: `${what} ${key.slice(0, 200)}`, reason });
  return true;
}

export function featurePinsFor(spec: McpImport, survey: UpstreamSurvey, label: string): FeaturePins {
  const source: McpSource = { kind: 'mcp', server: spec.server, url: spec.url, ...(spec.headers ? { headers: { ...spec.headers } } : {}), protocol: survey.protocol };
  const completing: McpSource = survey.completions ? { ...source, completions: true } : source;
  const skipped: SkippedMcpTool[] = [];
  const tooLong = (value: string, max: number) => (value.length > max ? `it has ${value.length} characters, more than the ${max} toolgate keeps` : undefined);

  const resourcesByUri = new Map(survey.resources.map((resource) => [resource.uri, resource]));
  const resources = selected(spec.resources, [...resourcesByUri.keys()], 'resource', spec, label)
    .filter((uri) => !refuse(spec, spec.resources, uri, 'resource', tooLong(uri, MAX_URI_CHARS), label, skipped))
    .map((uri): ManifestResource => {
      const listed = resourcesByUri.get(uri)!;
      const size = listed.size;
      return {
        uri,
        name: listed.name,
        ...info(listed),
        ...(text(listed.mimeType) !== undefined ? { mime_type: text(listed.mimeType) } : {}),
        ...(typeof size === 'number' && Number.isSafeInteger(size) && size >= 0 ? { size } : {}),
        ...rules(spec),
        source,
      };
    });

  const templatesByUri = new Map(survey.resourceTemplates.map((template) => [template.uriTemplate, template]));
  const resource_templates = selected(spec.resource_templates, [...templatesByUri.keys()], 'resource template', spec, label)
    .filter((template) => {
      const matcher = uriTemplateMatcher(template);
      const reason = tooLong(template, MAX_URI_CHARS) ?? (matcher.ok ? undefined : `toolgate cannot match it (${matcher.problem})`);
      return !refuse(spec, spec.resource_templates, template, 'resource template', reason, label, skipped);
    })
    .map((uri_template): ManifestResourceTemplate => {
      const listed = templatesByUri.get(uri_template)!;
      return { uri_template, name: listed.name, ...info(listed), ...(text(listed.mimeType) !== undefined ? { mime_type: text(listed.mimeType) } : {}), ...rules(spec), source: completing };
    });

  const promptsByName = new Map(survey.prompts.map((prompt) => [prompt.name, prompt]));
  const prompts = selected(spec.prompts, [...promptsByName.keys()], 'prompt', spec, label)
    .filter((name) => !refuse(spec, spec.prompts, name, 'prompt', tooLong(`${spec.prompt_prefix ?? ''}${name}`, MAX_PROMPT_NAME_CHARS), label, skipped))
    .map((name): ManifestPrompt => {
      const listed = promptsByName.get(name)!;
      const args = promptArguments(listed.arguments);
      return { name: `${spec.prompt_prefix ?? ''}${name}`, ...info(listed), ...(args.length > 0 ? { arguments: args } : {}), ...rules(spec), source: { ...completing, prompt: name } };
    });

  return { resources, resource_templates, prompts, skipped };
}

/** A prompt's arguments as listed: a name each (the first of a repeated name), optional title, description, required. */
function promptArguments(value: unknown): PromptArgument[] {
  if (!Array.isArray(value)) return [];
  const seen = new Set<string>();
  return value.flatMap((arg): PromptArgument[] => {
    if (!isJsonObject(arg) || typeof arg.name !== 'string' || arg.name === '' || seen.has(arg.name)) return [];
    seen.add(arg.name);
    return [{
      name: arg.name,
      ...(text(arg.title) !== undefined ? { title: text(arg.title) } : {}),
      ...(text(arg.description) !== undefined ? { description: text(arg.description) } : {}),
      ...(typeof arg.required === 'boolean' ? { required: arg.required } : {}),
    }];
  });
}
