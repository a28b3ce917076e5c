import type { CallRun } from '../dispatch/context.ts';
import { idempotencyKeyFor } from '../idempotency/keys.ts';
import type { JsonRpcId } from '../mcp-wire/json-rpc.ts';
import { isLegacyVersion } from '../mcp-wire/versions.ts';
import type { McpCallIdentity } from './call-identity.ts';
import type { McpEventStream } from './event-stream.ts';
import { streamIdBase, type StreamRecord } from './stream-event-id.ts';

/**
 * The POST side of a resumable `tools/call` event stream (SEP-1699, 2025-11-25): the stream is
 * primed (its first event: an id, a `retry` and empty data) once the call's run starts, when the
 * record its outcome will be stored under is durable, so the id it gives the client always names
 * something GET + Last-Event-ID can find (resume.ts). Every event after it carries an id; the
 * answer's is the stream's last. A call that never runs (refused, replayed) primes just before
 * its answer, naming no record.
 */

/** How long a client that lost the stream waits before resuming it (the `retry` field, ms). */
export const RESUME_RETRY_MS = 3000;

/** The first legacy revision whose clients take priming events (an empty `data` may confuse older ones). */
const FIRST_RESUMABLE_VERSION = '2025-11-25';

/**
 * Whether a legacy client speaking `version` gets resumable streams: the revision its session
 * agreed, else its MCP-Protocol-Version header. 2026-07-28 has no resumption (no GET stream).
 */
export function takesResumableStreams(version: string | null | undefined): boolean {
  return typeof version === 'string' && isLegacyVersion(version) && version >= FIRST_RESUMABLE_VERSION;
}

/** The one request a resumable stream answers: whose stream it is (streamOwner) and the request's id. */
export interface ResumeAs {
  owner: string;
  requestId: JsonRpcId;
}

export class ResumableStream {
  readonly #events: McpEventStream;
  readonly #stream: ResumeAs;
  readonly #tenant: string;
  /** The call answering the stream's request, once it has an identity. */
  #call?: McpCallIdentity;

  constructor(events: McpEventStream, stream: ResumeAs, tenant: string) {
    this.#events = events;
    this.#stream = stream;
    this.#tenant = tenant;
  }

  /** The caller's `onRun` for the call `identity` answering the stream's request: primes the stream. */
  runHook(identity: McpCallIdentity): (run: CallRun) => void {
    this.#call = identity;
    return (run) => this.#prime(this.#recordOf(identity, run));
  }

  /** The stream's answer (its last event), primed first when the call never ran. */
  answer(message: unknown): void {
    this.#prime('n');
    this.#events.send(message, 'end');
  }

  #prime(record: StreamRecord): void {
    if (this.#events.primed) return;
    const call = this.#call;
    const base = streamIdBase({ owner: this.#stream.owner, requestId: this.#stream.requestId, thread_id: call?.thread_id ?? '', call_id: call?.call_id ?? '', record });
    // Ids that would be too long (a huge request id or call id): the stream stays unresumable, as before.
    if (base) this.#events.prime(base, RESUME_RETRY_MS);
  }

  /** Where the call's outcome is kept: under its call key ("c"), under its arguments ("k"), or nowhere ("n"). */
  #recordOf(identity: McpCallIdentity, run: CallRun): StreamRecord {
    if (run.record_key === undefined) return 'n';
    const callKey = idempotencyKeyFor('call', { tenant: this.#tenant, thread_id: identity.thread_id, call_id: identity.call_id, tool: '', args_hash: '' });
    return run.record_key === callKey ? 'c' : 'k';
  }
}
