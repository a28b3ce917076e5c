import type { ConnectionAccess } from '../../connections/connection-access.ts';
import { executorAuthOf, userAuthorization, withoutAuthorization, type ExecutorAuth } from '../../connections/executor-auth.ts';
import { resolveSecret, SECRET_REFERENCE, type ResolveSecret } from '../../crypto/secrets.ts';
import { signBody } from '../../crypto/signed-request.ts';
import { egressRefusal, type Fetch } from '../../egress/fetch.ts';
import type { ContentOutput } from '../content-parts.ts';
import { ContentShapeError, readToolResultBody, type ReadToolResult } from '../content-read.ts';
import { errorText } from '../content-text.ts';
import type { ToolDefinition } from '../definition.ts';
import { ToolError } from '../errors.ts';
import type { ToolExecutionContext, ToolExecutor, ToolOutput } from '../executor.ts';
import type { JsonObject } from '../json.ts';
import { confinedAccess } from './confined.ts';
import type { ExecutorKind, ManifestProblem } from './kind.ts';
import { MAX_TOOL_ANSWER_BYTES, readBoundedText } from './bounded-body.ts';

export interface HttpExecutorConfig {
  url: string;
  /** "env:NAME" */
  secret: string;
  /** Sent with every request; "env:NAME" values are resolved like the secret. */
  headers?: Record<string, string>;
  /** Send the calling user's own token of this manifest connection as `Authorization: Bearer` (lib/connections). */
  auth?: ExecutorAuth;
}

/**
 * Where secrets resolve and how requests go out. A manifest's executor gets its tenant's grants
 * and the gateway's egress; one built in code without them (library use: the developer's own
 * endpoint) resolves from the call's `env` and uses the runtime's fetch.
 */
export interface HttpExecutorAccess {
  secrets?: ResolveSecret;
  fetch?: Fetch;
  /** The calling users' connection tokens, for `auth`. */
  connections?: ConnectionAccess;
}

const ERROR_BODY_CHARS = 500;
/** W3C trace context headers: only `traceparent` (the call's span) goes to a tenant's endpoint, never the caller's tracestate. */
const TRACE_HEADERS = new Set(['traceparent', 'tracestate']);

/**
 * A tenant's own tool behind an HTTPS endpoint. toolgate POSTs
 * `{tool, arguments, call_id, thread_id, tenant}` signed with HMAC-SHA256 over
 * `timestamp + "." + body`; a 2xx JSON or text answer is the result, and an answer of type
 * CONTENT_PARTS_MEDIA_TYPE is content parts (images, audio, resources, structured content).
 */
export class HttpToolExecutor implements ToolExecutor {
  readonly name: string;
  readonly definition: ToolDefinition;
  readonly #config: HttpExecutorConfig;
  readonly #access: HttpExecutorAccess;

  constructor(definition: ToolDefinition, config: HttpExecutorConfig, access: HttpExecutorAccess = {}) {
    this.name = definition.name;
    this.definition = definition;
    this.#config = config;
    this.#access = access;
  }

  async execute(args: JsonObject, context: ToolExecutionContext): Promise<ToolOutput> {
    const resolve = this.#access.secrets ?? ((reference: string) => resolveSecret(reference, context.env));
    const secret = resolve(this.#config.secret);
    // The user's token first: a call that must ask the user to connect sends nothing.
    const authorization = await userAuthorization(executorAuthOf(this.#config.auth), this.#access.connections, context);
    const own = Object.entries(this.#config.headers ?? {});
    const configured = (authorization.authorization ? withoutAuthorization(own) : own)
      // The trace context is the gateway's to set: a manifest's own traceparent/tracestate is not sent beside it.
      .filter(([name]) => !context.traceparent || !TRACE_HEADERS.has(name.toLowerCase()))
      .map(([name, value]) => [name, SECRET_REFERENCE.test(value) ? resolve(value) : value]);
    const body = JSON.stringify({ tool: this.name, arguments: args, call_id: context.call_id, thread_id: context.thread_id, tenant: context.tenant });
    const traced = context.traceparent ? { traceparent: context.traceparent } : {};
    const headers = { ...Object.fromEntries(configured), ...authorization, 'content-type': 'application/json', 'user-agent': 'toolgate', ...traced, ...(await signBody(secret, body)) };
    const send = this.#access.fetch ?? ((input, init) => fetch(input, init));
    let response: Response;
    try {
      response = await send(this.#config.url, { method: 'POST', headers, body, signal: context.signal });
    } catch (error) {
      if (context.signal.aborted) throw context.signal.reason;
      const refused = egressRefusal(error);
      if (refused) throw new ToolError('unavailable', `Tool \`${this.name}\` is unavailable: ${refused.message}. Nothing was sent.`, { host: refused.host });
      throw new ToolError('error', `Could not reach tool \`${this.name}\` at ${this.#config.url}: ${causeOf(error)}`, { status: 0 });
    }
    const text = await readBoundedText(response, MAX_TOOL_ANSWER_BYTES);
    if (text === undefined) {
      throw new ToolError('error', `Tool \`${this.name}\` answered more than ${MAX_TOOL_ANSWER_BYTES / 1024 / 1024} MiB (HTTP ${response.status}); toolgate reads no more of an answer.`, { status: response.status });
    }
    if (!response.ok) {
      const excerpt = text.length > ERROR_BODY_CHARS ? `${text.slice(0, ERROR_BODY_CHARS)}…` : text;
      const redirect = response.status >= 300 && response.status < 400 ? ` (a redirect${redirectTarget(response)}, which toolgate does not follow)` : '';
      throw new ToolError('error', `Tool \`${this.name}\` answered HTTP ${response.status}${redirect}${excerpt ? `: ${excerpt}` : ''}`, { status: response.status });
    }
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (mediaType === CONTENT_PARTS_MEDIA_TYPE) return this.#contentParts(text);
    if (!mediaType.includes('json')) return text;
    try {
      return JSON.parse(text) as ToolOutput;
    } catch {
      return text;
    }
  }

  /** A body that says it is content parts must be exactly that: a bad one is an error result naming the field. */
  #contentParts(text: string): ContentOutput {
    const refuse = (problem: string) => new ToolError('error', `Tool \`${this.name}\` answered ${CONTENT_PARTS_MEDIA_TYPE} that toolgate cannot read: ${problem}. The tool's endpoint must answer {"content": [...], "structuredContent"?, "isError"?} (MCP's CallToolResult).`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw refuse('the body is not JSON');
    }
    let read: ReadToolResult;
    try {
      read = readToolResultBody(body);
    } catch (error) {
      if (error instanceof ContentShapeError) throw refuse(error.message);
      throw error;
    }
    if (read.isError) throw new ToolError('error', errorText(read.output.content, read.output.structured) || `Tool \`${this.name}\` reported an error without a message`);
    return read.output;
  }
}

/**
 * The media type an http tool answers with to return content parts: the body is an MCP
 * CallToolResult, `{"content": [...], "structuredContent"?: {...}, "isError"?: bool}`.
 */
export const CONTENT_PARTS_MEDIA_TYPE = 'application/vnd.toolgate.tool-result+json';

function redirectTarget(response: Response): string {
  const location = response.headers.get('location');
  return location ? ` to ${location.slice(0, 200)}` : '';
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

export const httpExecutorKind: ExecutorKind = {
  kind: 'http',
  needsDefinition: true,
  check(config, path) {
    const problems: ManifestProblem[] = [];
    if (typeof config.url !== 'string' || !/^https?:\/\/[^/]/.test(config.url)) {
      problems.push({ path: `${path}.url`, message: 'must be the http(s) URL of the tool endpoint' });
    }
    if (config.secret === undefined) problems.push({ path: `${path}.secret`, message: 'is required: the HMAC signing secret, as "env:NAME"' });
    if (config.headers !== undefined && (typeof config.headers !== 'object' || config.headers === null || Object.values(config.headers).some((v) => typeof v !== 'string'))) {
      problems.push({ path: `${path}.headers`, message: 'must be an object of header names to string values' });
    }
    const unknown = Object.keys(config).filter((key) => !['kind', 'url', 'secret', 'headers', 'auth'].includes(key));
    for (const key of unknown) problems.push({ path: `${path}.${key}`, message: 'is not a field of an http executor (url, secret, headers, auth)' });
    return problems;
  },
  baseDefinition: () => undefined,
  create(definition, config, context) {
    return new HttpToolExecutor(definition, config as unknown as HttpExecutorConfig, confinedAccess(context));
  },
};
