import type { ToolResult } from '../dispatch/call.ts';
import { metaOf } from '../mcp-wire/envelope.ts';
import { ErrorCode, isPlainObject, jsonRpcError, type JsonObject, type JsonRpcRequest } from '../mcp-wire/json-rpc.ts';
import type { JsonObject as JsonArgs } from '../registry/json.ts';
import type { ContentPart } from '../registry/content-parts.ts';
import type { ManifestPrompt, ManifestResource, ManifestResourceTemplate, PinnedFeatureInfo } from '../registry/manifest/manifest.ts';
import type { CompletionRef, McpFeatures } from '../registry/mcp-upstream/features.ts';
import type { McpEra } from './call-relay.ts';
import { callableBy } from '../search/callable.ts';
import { callFeature } from './feature-call.ts';
import { McpMethodError } from './method-error.ts';
import { withoutProtoKey, type McpRequestScope } from './methods.ts';

/**
 * The tenant's pinned upstream resources, resource templates and prompts as MCP methods: lists
 * from the manifest (no upstream round trip: an upstream's changes arrive with the next import),
 * reads, gets and completions from the upstream through the pipeline (feature-call.ts), answered
 * with what the upstream answered.
 */

function featuresOf(scope: McpRequestScope): McpFeatures {
  const features = scope.context.runtime.features;
  // Only offered to tenants with pins (feature-methods.ts): a fault if reached without.
  if (!features) throw new Error('this tenant pins no resources or prompts');
  return features;
}

/** MCP's descriptive fields, as pinned. */
function described(entry: PinnedFeatureInfo) {
  return {
    ...(entry.title !== undefined ? { title: entry.title } : {}),
    ...(entry.description !== undefined ? { description: entry.description } : {}),
  };
}

function resourceDescriptor(resource: ManifestResource) {
  return {
    uri: resource.uri,
    name: resource.name,
    ...described(resource),
    ...(resource.mime_type !== undefined ? { mimeType: resource.mime_type } : {}),
    ...(resource.size !== undefined ? { size: resource.size } : {}),
    ...decorations(resource),
  };
}

function templateDescriptor(template: ManifestResourceTemplate) {
  return {
    uriTemplate: template.uri_template,
    name: template.name,
    ...described(template),
    ...(template.mime_type !== undefined ? { mimeType: template.mime_type } : {}),
    ...decorations(template),
  };
}

function promptDescriptor(prompt: ManifestPrompt) {
  return { name: prompt.name, ...described(prompt), ...(prompt.arguments ? { arguments: prompt.arguments } : {}), ...decorations(prompt) };
}

function decorations(entry: PinnedFeatureInfo) {
  return { ...(entry.annotations !== undefined ? { annotations: entry.annotations } : {}), ...(entry.icons !== undefined ? { icons: entry.icons } : {}) };
}

/**
 * Whether the caller may read an entry at all (its scopes, the policy's outright denials): the
 * lists name only those, as tools/list names only tools the caller may call, so a principal
 * without the import's scopes does not learn its URIs, names and descriptions.
 */
function readableBy(scope: McpRequestScope, features: McpFeatures): (entry: string) => boolean {
  const { runtime, principal } = scope.context;
  const callable = callableBy(runtime.manifest, new Set(principal.scopes));
  return (entry) => {
    const definition = features.registry.get(entry)?.definition;
    return definition !== undefined && callable(definition);
  };
}

export function listMcpResources(scope: McpRequestScope) {
  const features = featuresOf(scope);
  const readable = readableBy(scope, features);
  return { resources: features.resources.filter((resource) => readable(`resource:${resource.uri}`)).map(resourceDescriptor) };
}

export function listMcpResourceTemplates(scope: McpRequestScope) {
  const features = featuresOf(scope);
  const readable = readableBy(scope, features);
  return { resourceTemplates: features.templates.filter((template) => readable(`resource_template:${template.uri_template}`)).map(templateDescriptor) };
}

export function listMcpPrompts(scope: McpRequestScope) {
  const features = featuresOf(scope);
  const readable = readableBy(scope, features);
  return { prompts: features.prompts.filter((prompt) => readable(`prompt:${prompt.name}`)).map(promptDescriptor) };
}

/** A result's own `_meta` (the upstream's, reserved keys already dropped), when it has one. */
const ownMeta = (result: ToolResult) => (result.meta ? { _meta: result.meta } : {});

/**
 * `resources/read`: a pinned resource, or a URI a pinned template matches. Unknown: the
 * revision's resource-not-found (-32002 on the legacy revisions, -32602 on 2026-07-28).
 */
export async function readMcpResource(scope: McpRequestScope, request: JsonRpcRequest, era: McpEra): Promise<JsonObject> {
  const features = featuresOf(scope);
  const uri = request.params!.uri as string;
  const entry = features.resourceEntry(uri);
  if (!entry) throw new McpMethodError(jsonRpcError(era === 'modern' ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound, `Resource ${uri} not found`, { uri }));
  if (typeof entry !== 'string') {
    const message = `Resource ${uri} is pinned by several upstreams (${entry.ambiguous.join(', ')}); toolgate does not guess which one it belongs to, so none is asked (pin narrower templates, or one upstream's only)`;
    throw new McpMethodError(jsonRpcError(ErrorCode.InvalidParams, message, { uri }));
  }
  const result = await callFeature(scope, features, { method: request.method, entry, args: { uri }, requestId: request.id, meta: metaOf(request.params) });
  // Parts come back as text only when nothing was left to pass on (every part dropped): the notes are the text.
  const parts: ContentPart[] = result.content_parts ?? (result.content ? [{ type: 'text', text: result.content }] : []);
  const contents = parts.map((part) => {
    // A part the checks dropped (too large, not base64) is a note in its place: the read fails with it.
    if (part.type !== 'resource') throw new McpMethodError(jsonRpcError(ErrorCode.InternalError, `Resource ${uri} cannot be passed on: ${part.type === 'text' ? part.text : part.type}`, { uri }));
    return part.resource;
  });
  return { contents, ...ownMeta(result) };
}

/** `prompts/get`: a pinned prompt's messages from its upstream, under the name toolgate gives it. */
export async function getMcpPrompt(scope: McpRequestScope, request: JsonRpcRequest): Promise<JsonObject> {
  const features = featuresOf(scope);
  const name = request.params!.name as string;
  const entry = features.promptEntry(name);
  if (!entry) throw new McpMethodError(jsonRpcError(ErrorCode.InvalidParams, `Prompt ${name} not found`, { name }));
  // JSON from the wire (the pipeline validates it against the prompt's arguments).
  const args = withoutProtoKey(isPlainObject(request.params!.arguments) ? request.params!.arguments : {}) as JsonArgs;
  const result = await callFeature(scope, features, { method: request.method, entry, args, requestId: request.id, meta: metaOf(request.params) });
  const structured = result.structured_content ?? {};
  const roles = Array.isArray(structured.roles) ? structured.roles : [];
  const parts: ContentPart[] = result.content_parts ?? [];
  return {
    ...(typeof structured.description === 'string' ? { description: structured.description } : {}),
    messages: parts.map((content, i) => ({ role: roles[i] ?? 'user', content })),
    ...ownMeta(result),
  };
}

/**
 * `completion/complete`: the upstream's suggestions for a pinned prompt's or template's argument;
 * none when its upstream does not complete. An unknown prompt or template is invalid params.
 */
export async function completeMcp(scope: McpRequestScope, request: JsonRpcRequest): Promise<JsonObject> {
  const features = featuresOf(scope);
  const params = request.params!;
  const ref = params.ref as JsonObject;
  const target: CompletionRef | undefined = ref.type === 'ref/prompt' && typeof ref.name === 'string' ? { type: 'ref/prompt', name: ref.name } : ref.type === 'ref/resource' && typeof ref.uri === 'string' ? { type: 'ref/resource', uri: ref.uri } : undefined;
  const entry = target && features.completionEntry(target);
  if (entry === undefined) throw new McpMethodError(jsonRpcError(ErrorCode.InvalidParams, `${target?.type === 'ref/resource' ? `Resource template ${target.uri}` : `Prompt ${String(ref.name)}`} not found`));
  if (entry === null) return { completion: { values: [], total: 0, hasMore: false } };
  const args = { argument: params.argument, ...(params.context !== undefined ? { context: params.context } : {}) } as JsonArgs;
  const result = await callFeature(scope, features, { method: request.method, entry, args, requestId: request.id, meta: metaOf(params) });
  return { completion: result.structured_content?.completion ?? { values: [] }, ...ownMeta(result) };
}
