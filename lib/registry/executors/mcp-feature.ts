import { ContentOutput } from '../content-parts.ts';
import { ContentShapeError, readToolResultBody } from '../content-read.ts';
import type { ToolDefinition } from '../definition.ts';
import { ToolError } from '../errors.ts';
import type { ToolExecutionContext, ToolExecutor } from '../executor.ts';
import { isJsonObject, type JsonObject } from '../json.ts';
import type { McpSource } from '../manifest/manifest.ts';
import { onUpstream, type UpstreamAccess } from './mcp-upstream.ts';

/**
 * A pinned upstream resource, template or prompt as an executor, so reading it runs through the
 * same pipeline as a tool call (scopes, policy, timeout, audit). Its output is the upstream's
 * answer as content parts (checked like any tool's) plus what parts cannot carry, in structured
 * content: the MCP face (lib/mcp/features.ts) puts the protocol's result back together.
 */

/** What the entry asks of the upstream. */
export type FeatureRequest =
  | { method: 'resources/read' }
  | { method: 'prompts/get'; prompt: string }
  | { method: 'completion/complete'; ref: JsonObject };

/** Contents or messages one answer may hold: as many parts as any tool result keeps (lib/dispatch/content-check.ts). */
const MAX_PARTS = 256;

/** Values one completion may offer (the spec's maximum). */
export const MAX_COMPLETION_VALUES = 100;

export class McpFeatureExecutor implements ToolExecutor {
  readonly name: string;
  readonly definition: ToolDefinition;
  readonly #source: McpSource;
  readonly #request: FeatureRequest;
  readonly #access: UpstreamAccess;

  constructor(definition: ToolDefinition, source: McpSource, request: FeatureRequest, access: UpstreamAccess) {
    this.name = definition.name;
    this.definition = definition;
    this.#source = source;
    this.#request = request;
    this.#access = access;
  }

  async execute(args: JsonObject, context: ToolExecutionContext): Promise<ContentOutput> {
    const { method } = this.#request;
    const params = { ...this.#params(args), ...(context.traceparent ? { _meta: { traceparent: context.traceparent } } : {}) };
    const label = { method, name: this.#labelName(args) };
    const result = await onUpstream(this.#source, this.#access, context, { label, capabilities: {} }, (connection) => connection.request(method, params, context.signal));
    if (result.resultType !== undefined && result.resultType !== 'complete') {
      throw new ToolError('error', `upstream MCP server at ${this.#source.url} answered ${method} "${label.name}" with resultType ${JSON.stringify(result.resultType).slice(0, 40)}: it needs input from the client, which toolgate cannot relay here`, { upstream: this.#source.url });
    }
    try {
      return featureOutput(this.#request, result);
    } catch (error) {
      if (!(error instanceof ContentShapeError)) throw error;
      throw new ToolError('error', `upstream MCP server at ${this.#source.url} answered ${method} "${label.name}" with a result toolgate cannot read: ${error.message}`, { upstream: this.#source.url });
    }
  }

  #params(args: JsonObject): JsonObject {
    const request = this.#request;
    if (request.method === 'resources/read') return { uri: args.uri ?? '' };
    if (request.method === 'prompts/get') return { name: request.prompt, arguments: args };
    return { ref: request.ref, argument: args.argument ?? {}, ...(args.context !== undefined ? { context: args.context } : {}) };
  }

  #labelName(args: JsonObject): string {
    const request = this.#request;
    if (request.method === 'resources/read') return String(args.uri).slice(0, 200);
    if (request.method === 'prompts/get') return request.prompt;
    return String(request.ref.name ?? request.ref.uri).slice(0, 200);
  }
}

/** The upstream's answer as content parts and structured content (untrusted JSON: shapes checked). */
function featureOutput(request: FeatureRequest, result: JsonObject): ContentOutput {
  if (request.method === 'resources/read') return readOutput(result);
  if (request.method === 'prompts/get') return promptOutput(result);
  return completionOutput(result);
}

/** `{contents: [ResourceContents]}`: each an embedded resource part. */
function readOutput(result: JsonObject): ContentOutput {
  if (!Array.isArray(result.contents)) throw new ContentShapeError('contents must be an array of resource contents');
  if (result.contents.length > MAX_PARTS) throw new ContentShapeError(`it has ${result.contents.length} contents, more than the ${MAX_PARTS} toolgate passes on`);
  const { output } = readToolResultBody({ content: result.contents.map((resource) => ({ type: 'resource', resource })), ...(result._meta !== undefined ? { _meta: result._meta } : {}) });
  return output;
}

const ROLES = new Set(['user', 'assistant']);

/** `{description?, messages: [{role, content}]}`: the contents as parts, the roles and description as structured content. */
function promptOutput(result: JsonObject): ContentOutput {
  const { messages, description } = result;
  if (!Array.isArray(messages)) throw new ContentShapeError('messages must be an array of prompt messages');
  if (messages.length > MAX_PARTS) throw new ContentShapeError(`it has ${messages.length} messages, more than the ${MAX_PARTS} toolgate passes on`);
  if (description !== undefined && typeof description !== 'string') throw new ContentShapeError('description must be a string');
  const roles = messages.map((message, i) => {
    if (!isJsonObject(message) || typeof message.role !== 'string' || !ROLES.has(message.role)) throw new ContentShapeError(`messages[${i}].role must be "user" or "assistant"`);
    return message.role;
  });
  const { output } = readToolResultBody({ content: messages.map((message) => (message as JsonObject).content), ...(result._meta !== undefined ? { _meta: result._meta } : {}) });
  return new ContentOutput(output.content, { roles, ...(description !== undefined ? { description } : {}) }, output.meta ? { meta: output.meta } : {});
}

/** `{completion: {values, total?, hasMore?}}`, at most MAX_COMPLETION_VALUES strings (more: cut, and hasMore said). */
function completionOutput(result: JsonObject): ContentOutput {
  const completion = result.completion;
  if (!isJsonObject(completion) || !Array.isArray(completion.values) || !completion.values.every((value) => typeof value === 'string')) {
    throw new ContentShapeError('completion.values must be an array of strings');
  }
  const values = completion.values.slice(0, MAX_COMPLETION_VALUES);
  const cut = completion.values.length > values.length;
  const answer: JsonObject = { values };
  if (typeof completion.total === 'number' && Number.isSafeInteger(completion.total)) answer.total = completion.total;
  if (cut || typeof completion.hasMore === 'boolean') answer.hasMore = cut || completion.hasMore === true;
  return new ContentOutput([], { completion: answer });
}
