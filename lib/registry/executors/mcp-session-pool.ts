import type { JsonObject } from '../json.ts';
import { openLegacySession, type LegacySession } from '../mcp-client/handshake.ts';
import type { McpEndpoint } from '../mcp-client/transport.ts';
import { upstreamUnavailable } from '../mcp-upstream/failure.ts';

/** How long the initialize handshake may take; a call's own timeout still ends the wait sooner. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Enough for every upstream a tenant uses on one isolate; the oldest beyond it is forgotten. */
const MAX_SESSIONS = 64;

export interface PooledSession {
  key: string;
  session: LegacySession;
  /** Initialized for this call: a failure is the server's, not a stale session's. */
  fresh: boolean;
}

type Handshake = (endpoint: McpEndpoint, capabilities: JsonObject) => Promise<LegacySession>;

interface Entry {
  handshake: Promise<LegacySession>;
  /** Set once the handshake is done: later calls read it without awaiting another request's promise. */
  session?: LegacySession;
}

/** Rejects with the signal's reason as soon as it aborts, whatever `promise` is still doing. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Initializes and keeps the session's id and protocol version (the session is not ended: calls use it). */
async function handshake(endpoint: McpEndpoint, capabilities: JsonObject): Promise<LegacySession> {
  const { sessionId, protocolVersion } = await openLegacySession(endpoint, capabilities, AbortSignal.timeout(CONNECT_TIMEOUT_MS));
  return { ...(sessionId ? { sessionId } : {}), protocolVersion };
}

/**
 * Initialized legacy MCP sessions, one per tenant, upstream URL, resolved headers and declared
 * client capabilities (an upstream may keep state in a session: another tenant's calls never
 * land in it, even with the same URL and headers), kept for the life of the isolate (or process) so repeated calls skip the
 * handshake. Only plain data is kept, never a stream or a connection. Concurrent first calls
 * share one handshake; a failed one is not kept.
 */
export class McpSessionPool {
  readonly #entries = new Map<string, Entry>();
  readonly #handshake: Handshake;

  constructor(open: Handshake = handshake) {
    this.#handshake = open;
  }

  /**
   * A session to call on; handshake failures are `unavailable` ToolErrors naming the URL. A new
   * handshake goes out through the endpoint's fetch (the caller's egress); a kept session sends nothing here.
   */
  async acquire(tenant: string, endpoint: McpEndpoint, capabilities: JsonObject, signal: AbortSignal): Promise<PooledSession> {
    // The key holds resolved secrets: it lives in this isolate's memory only.
    const headers = Object.entries(endpoint.headers).sort(([a], [b]) => a.localeCompare(b));
    const key = `${tenant}\n${endpoint.url}\n${JSON.stringify(headers)}\n${JSON.stringify(capabilities)}`;
    const existing = this.#entries.get(key);
    if (existing?.session) return { key, session: existing.session, fresh: false };
    const entry = existing ?? this.#start(key, endpoint, capabilities);
    return { key, session: await untilAborted(entry.handshake, signal), fresh: existing === undefined };
  }

  /** Forgets a session the server no longer knows. */
  drop(pooled: PooledSession): void {
    if (this.#entries.get(pooled.key)?.session === pooled.session) this.#entries.delete(pooled.key);
  }

  clear(): void {
    this.#entries.clear();
  }

  #start(key: string, endpoint: McpEndpoint, capabilities: JsonObject): Entry {
    const entry: Entry = {
      handshake: this.#handshake(endpoint, capabilities).then(
        (session) => {
          entry.session = session;
          return session;
        },
        (error: unknown) => {
          if (this.#entries.get(key) === entry) this.#entries.delete(key);
          throw upstreamUnavailable(endpoint.url, error);
        },
      ),
    };
    this.#entries.set(key, entry);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= MAX_SESSIONS) break;
      this.#entries.delete(oldest);
    }
    return entry;
  }
}

/** The isolate's pool: module state is what survives between requests on Workers. */
export const sharedMcpSessionPool = new McpSessionPool();
