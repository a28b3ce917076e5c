import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { resolveSecret, SECRET_REFERENCE, type ResolveSecret } from '../crypto/secrets.ts';
import { capBody, MAX_TOOL_ANSWER_BYTES } from './executors/bounded-body.ts';

type Env = Readonly<Record<string, string | undefined>>;
type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

export type { Client as McpClient };

export interface McpConnectOptions {
  /** How long the initialize handshake may take. */
  timeoutMs: number;
  /** The fetch to use (tests, proxies); the runtime's own by default. */
  fetch?: Fetch;
}

/**
 * What survives between calls: plain data, because on Workers no I/O object (stream, body,
 * signal) may be used by a request other than the one that created it. `sessionId` is
 * undefined for servers that keep no sessions.
 */
export interface McpSession {
  sessionId?: string;
  protocolVersion?: string;
}

const CLIENT_INFO = { name: 'toolgate', version: '0.1.0' };

/**
 * Header values written as "env:NAME" are resolved (from `env`, or by a tenant's resolver, which
 * resolves only its grants); others are sent as written.
 */
export function resolveHeaders(headers: Readonly<Record<string, string>> | undefined, secrets: Env | ResolveSecret): Record<string, string> {
  const resolve = typeof secrets === 'function' ? secrets : (reference: string) => resolveSecret(reference, secrets);
  return Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name, SECRET_REFERENCE.test(value) ? resolve(value) : value]));
}

/**
 * toolgate only sends requests and reads their answers; it never listens for messages the
 * server starts. The transport would otherwise hold a GET stream open after the handshake:
 * a socket for nothing, and on Workers an I/O object outliving the request that made it.
 * Answering its GET with 405 is how a server says it offers no such stream, and the
 * transport accepts that.
 */
function withoutStandingStream(fetchImpl: Fetch): Fetch {
  return (url, init) => (init?.method === 'GET' ? Promise.resolve(new Response(null, { status: 405 })) : fetchImpl(url, init));
}

/** Whether a request is the notice that a call was cancelled, which must go out after the call's signal fired. */
function isCancellationNotice(init: RequestInit | undefined): boolean {
  if (typeof init?.body !== 'string' || !init.body.includes('notifications/cancelled')) return false;
  try {
    return (JSON.parse(init.body) as { method?: unknown }).method === 'notifications/cancelled';
  } catch {
    return false;
  }
}

/**
 * Requests end when `signal` aborts (a call's timeout), so the server sees the connection go
 * and no socket waits on an answer nobody reads; the cancellation notice itself still goes out.
 */
function endingWith(fetchImpl: Fetch, signal: AbortSignal | undefined): Fetch {
  if (!signal) return fetchImpl;
  return (url, init) => {
    if (isCancellationNotice(init)) return fetchImpl(url, init);
    return fetchImpl(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
  };
}

/** Every answer's body is capped: the SDK reads whole bodies, and a server may send gigabytes. */
function cappedAnswers(fetchImpl: Fetch): Fetch {
  return async (url, init) => capBody(await fetchImpl(url, init), MAX_TOOL_ANSWER_BYTES);
}

/** The SDK is loaded on first use: tenants without MCP tools never pay for it at cold start. */
async function newClient(url: string, headers: Record<string, string>, fetchImpl: Fetch | undefined, sessionId?: string, signal?: AbortSignal) {
  const [{ Client }, { StreamableHTTPClientTransport }, { CfWorkerJsonSchemaValidator }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    // Eval-free, like toolgate's own engine on Workers; toolgate never validates tool outputs anyway.
    import('@modelcontextprotocol/sdk/validation/cfworker'),
  ]);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    fetch: withoutStandingStream(cappedAnswers(endingWith(fetchImpl ?? ((input, init) => fetch(input, init)), signal))),
    sessionId,
  });
  return { client: new Client(CLIENT_INFO, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() }), transport };
}

/** An SDK client over Streamable HTTP (fetch only, so it runs on Workers too), after the initialize handshake. */
export async function connectMcpClient(url: string, headers: Record<string, string>, options: McpConnectOptions): Promise<Client> {
  const { client, transport } = await newClient(url, headers, options.fetch);
  await client.connect(transport, { timeout: options.timeoutMs });
  return client;
}

/** The session a connected client holds, to resume it later with resumeMcpClient. */
export function sessionOf(client: Client): McpSession {
  const transport = client.transport as { sessionId?: string; protocolVersion?: string } | undefined;
  return { sessionId: transport?.sessionId, protocolVersion: transport?.protocolVersion };
}

/**
 * A client for a session that is already initialized: no handshake, no network until it is
 * used. The SDK skips initialize when the transport has a session id; a server without
 * sessions gets "" (which the transport does not send), since it needs none. Its requests
 * end when `signal` aborts. It holds nothing open afterwards, so it needs no closing (closing
 * would also cut off the cancellation notice the SDK sends when a call is aborted).
 */
export async function resumeMcpClient(url: string, headers: Record<string, string>, session: McpSession, options: Pick<McpConnectOptions, 'fetch'> & { signal?: AbortSignal } = {}): Promise<Client> {
  const { client, transport } = await newClient(url, headers, options.fetch, session.sessionId ?? '', options.signal);
  if (session.protocolVersion) transport.setProtocolVersion(session.protocolVersion);
  await client.connect(transport);
  return client;
}

/** Ends the session politely (DELETE) when the server keeps one, then closes; never throws. */
export async function closeMcpClient(client: Client): Promise<void> {
  const transport = client.transport as { terminateSession?: () => Promise<void> } | undefined;
  await transport?.terminateSession?.().catch(() => {});
  await client.close().catch(() => {});
}

/** Every tool the server lists, following `nextCursor` pages. */
export async function listMcpTools(client: Client, timeoutMs: number): Promise<Tool[]> {
  const { ListToolsResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const tools: Tool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    // request() rather than listTools(): the latter compiles every output schema, which toolgate does not use.
    const page = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ListToolsResultSchema, { timeout: timeoutMs });
    tools.push(...page.tools);
    cursor = page.nextCursor;
    if (cursor !== undefined && seen.has(cursor)) throw new Error(`the server repeated the tools/list cursor "${cursor}"; its pagination loops`);
    if (cursor !== undefined) seen.add(cursor);
  } while (cursor !== undefined);
  return tools;
}
