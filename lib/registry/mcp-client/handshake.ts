import { isJsonObject, type JsonObject } from '../json.ts';
import { McpConnection } from './connection.ts';
import { McpHttpError, NotMcpError } from './errors.ts';
import { McpRpcError } from './messages.ts';
import { CLIENT_INFO, LATEST_LEGACY_VERSION, LEGACY_VERSIONS, MODERN_VERSION } from './protocol.ts';
import type { McpEndpoint } from './transport.ts';

/** A legacy session: what survives between calls is plain data (on Workers no I/O object outlives its request). */
export interface LegacySession {
  /** Undefined for servers that keep no sessions. */
  sessionId?: string;
  protocolVersion: string;
}

export interface OpenedSession extends LegacySession {
  /** The capabilities the upstream declared in its initialize result. */
  serverCapabilities: JsonObject;
}

/**
 * `initialize` (offering the newest legacy revision, declaring `capabilities`), then
 * `notifications/initialized`. An upstream that answers a revision toolgate does not know is
 * refused, as the SDKs do.
 */
export async function openLegacySession(endpoint: McpEndpoint, capabilities: JsonObject, signal: AbortSignal): Promise<OpenedSession> {
  const handshake = new McpConnection(endpoint, { era: 'legacy' });
  const { result, sessionId } = await handshake.exchange('initialize', { protocolVersion: LATEST_LEGACY_VERSION, capabilities, clientInfo: { ...CLIENT_INFO } }, signal);
  const version = result.protocolVersion;
  if (typeof version !== 'string' || !LEGACY_VERSIONS.includes(version)) {
    throw new NotMcpError(`its initialize answer names protocol version ${JSON.stringify(version)?.slice(0, 40)}, which toolgate does not speak (it speaks ${LEGACY_VERSIONS.join(', ')})`);
  }
  const session: LegacySession = { ...(sessionId ? { sessionId } : {}), protocolVersion: version };
  await new McpConnection(endpoint, { era: 'legacy', ...session }).notify('notifications/initialized', undefined, signal);
  return { ...session, serverCapabilities: isJsonObject(result.capabilities) ? result.capabilities : {} };
}

/** Ends a session politely (DELETE) when the upstream keeps one; never throws. */
export async function closeLegacySession(endpoint: McpEndpoint, session: LegacySession, signal: AbortSignal): Promise<void> {
  if (!session.sessionId) return;
  const headers = new Headers(endpoint.headers);
  headers.set('mcp-session-id', session.sessionId);
  headers.set('mcp-protocol-version', session.protocolVersion);
  const response = await endpoint.fetch(endpoint.url, { method: 'DELETE', headers, signal }).catch(() => undefined);
  await response?.body?.cancel().catch(() => {});
}

/** What `server/discover` found: a modern upstream (and what it declared), or one that speaks only the legacy revisions. */
export type Discovery = { era: 'modern'; protocolVersion: string; serverCapabilities: JsonObject } | { era: 'legacy' };

function offersModern(result: JsonObject): boolean {
  return Array.isArray(result.supportedVersions) && result.supportedVersions.includes(MODERN_VERSION);
}

/**
 * Asks the upstream which era it speaks, as the SDK's version negotiation does: a discover
 * result listing toolgate's modern revision is modern; a JSON-RPC error, or an HTTP refusal
 * other than for credentials or a server failure, is legacy evidence. Credentials refused,
 * 5xx, something that is not MCP, or no answer, are failures (thrown).
 */
export async function discoverEra(endpoint: McpEndpoint, signal: AbortSignal): Promise<Discovery> {
  const probe = new McpConnection(endpoint, { era: 'modern', protocolVersion: MODERN_VERSION, capabilities: {} });
  try {
    const result = await probe.request('server/discover', undefined, signal);
    if (!offersModern(result)) return { era: 'legacy' };
    return { era: 'modern', protocolVersion: MODERN_VERSION, serverCapabilities: isJsonObject(result.capabilities) ? result.capabilities : {} };
  } catch (error) {
    if (error instanceof McpRpcError) return { era: 'legacy' };
    if (error instanceof McpHttpError && error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 403) return { era: 'legacy' };
    throw error;
  }
}
