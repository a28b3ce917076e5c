import type { Fetch } from '../../egress/fetch.ts';
import { connectMcpClient, sessionOf, type McpSession } from '../mcp-connect.ts';
import { upstreamUnavailable } from '../mcp-failure.ts';

/** How long the initialize handshake may take; a call's own timeout still ends the wait sooner. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Enough for every upstream a tenant uses on one isolate; the oldest beyond it is forgotten. */
const MAX_SESSIONS = 64;

export interface PooledSession {
  key: string;
  session: McpSession;
  /** Initialized for this call: a failure is the server's, not a stale session's. */
  fresh: boolean;
}

type Handshake = (url: string, headers: Record<string, string>, fetch?: Fetch) => Promise<McpSession>;

interface Entry {
  handshake: Promise<McpSession>;
  /** Set once the handshake is done: later calls read it without awaiting another request's promise. */
  session?: McpSession;
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

/** Initializes, keeps the session's id and protocol version, and lets the handshake's client go (without ending the session). */
async function handshake(url: string, headers: Record<string, string>, fetch?: Fetch): Promise<McpSession> {
  const client = await connectMcpClient(url, headers, { timeoutMs: CONNECT_TIMEOUT_MS, fetch });
  const session = sessionOf(client);
  await client.close();
  return session;
}

/**
 * Initialized MCP sessions, one per upstream URL and resolved headers, kept for the life of the
 * isolate (or process) so repeated calls skip the handshake. Only the session's id and protocol
 * version are kept, never a client: each call builds a light client around them (see
 * resumeMcpClient). Concurrent first calls share one handshake; a failed one is not kept.
 */
export class McpSessionPool {
  readonly #entries = new Map<string, Entry>();
  readonly #handshake: Handshake;

  constructor(open: Handshake = handshake) {
    this.#handshake = open;
  }

  /**
   * A session to call on; handshake failures are `unavailable` ToolErrors naming the URL. A new
   * handshake goes out through `fetch` (the caller's egress); a kept session sends nothing here.
   */
  async acquire(url: string, headers: Record<string, string>, signal: AbortSignal, fetch?: Fetch): Promise<PooledSession> {
    // The key holds resolved secrets: it lives in this isolate's memory only.
    const key = `${url}\n${JSON.stringify(Object.entries(headers).sort(([a], [b]) => a.localeCompare(b)))}`;
    const existing = this.#entries.get(key);
    if (existing?.session) return { key, session: existing.session, fresh: false };
    const entry = existing ?? this.#start(key, url, headers, fetch);
    return { key, session: await untilAborted(entry.handshake, signal), fresh: existing === undefined };
  }

  /** Forgets a session the server no longer knows. */
  drop(pooled: PooledSession): void {
    if (this.#entries.get(pooled.key)?.session === pooled.session) this.#entries.delete(pooled.key);
  }

  clear(): void {
    this.#entries.clear();
  }

  #start(key: string, url: string, headers: Record<string, string>, fetch: Fetch | undefined): Entry {
    const entry: Entry = {
      handshake: this.#handshake(url, headers, fetch).then(
        (session) => {
          entry.session = session;
          return session;
        },
        (error: unknown) => {
          if (this.#entries.get(key) === entry) this.#entries.delete(key);
          throw upstreamUnavailable(url, error);
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
