import { fromBase64url, toBase64url } from '../crypto/base64url.ts';
import { sha256Hex } from '../idempotency/canonical-json.ts';
import { isJsonRpcId, type JsonRpcId } from '../mcp-wire/json-rpc.ts';

/**
 * The event ids of a resumable `tools/call` event stream (SEP-1699): each names the stream (whose
 * it is, the JSON-RPC request it answers, the call toolgate ran for it and where that call's
 * outcome is kept) and a place in it, so a client that lost the stream can ask for the rest with
 * GET + Last-Event-ID on any instance: nothing about a stream is kept but its call's own record.
 *
 *   tg1.<base64url of JSON [owner, request id, thread, call id, record]>.<sequence | "end">
 *
 * `owner` is a digest of the tenant and principal (a stranger's id is refused before any store
 * read; the record's own principal is what proves ownership, resume.ts). `record` says where the
 * outcome is: "c" under the call's key (thread + call id), "k" under its arguments (idempotency
 * "content"), "n" nowhere. "end" marks the answer: nothing follows it. An id is visible ASCII and
 * at most MAX_EVENT_ID characters: room for the longest thread and call id a client may name (in
 * any script) and a request id of a few hundred characters; a stream whose ids would be longer is
 * not made resumable.
 */

export const MAX_EVENT_ID = 2048;
const PREFIX = 'tg1.';

export type StreamRecord = 'c' | 'k' | 'n';

/** Which stream an event id names. */
export interface StreamName {
  owner: string;
  requestId: JsonRpcId;
  thread_id: string;
  call_id: string;
  record: StreamRecord;
}

/** An event's place in its stream: the priming event is 0, the answer "end". */
export type StreamPlace = number | 'end';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The owner digest of a stream: 16 hex characters of SHA-256(tenant, principal). */
export async function streamOwner(tenant: string, principal: string): Promise<string> {
  return (await sha256Hex(`${tenant}\u0000${principal}`)).slice(0, 16);
}

/** The id prefix of a stream's events (`<prefix>.<place>`), or undefined when its ids would be too long. */
export function streamIdBase(name: StreamName): string | undefined {
  const payload = [name.owner, name.requestId, name.thread_id, name.call_id, name.record];
  const base = PREFIX + toBase64url(encoder.encode(JSON.stringify(payload)));
  return base.length + '.end'.length <= MAX_EVENT_ID ? base : undefined;
}

export const eventId = (base: string, place: StreamPlace) => `${base}.${place}`;

/** What a Last-Event-ID names, or undefined for anything toolgate did not (or could not have) made. */
export function readEventId(id: string): { name: StreamName; place: StreamPlace } | undefined {
  if (id.length > MAX_EVENT_ID || !id.startsWith(PREFIX)) return undefined;
  const dot = id.lastIndexOf('.');
  const place = readPlace(id.slice(dot + 1));
  const bytes = dot > PREFIX.length ? fromBase64url(id.slice(PREFIX.length, dot)) : undefined;
  if (place === undefined || !bytes) return undefined;
  const name = readName(bytes);
  return name && { name, place };
}

function readPlace(text: string): StreamPlace | undefined {
  if (text === 'end') return 'end';
  return /^(0|[1-9]\d{0,8})$/.test(text) ? Number(text) : undefined;
}

function readName(bytes: Uint8Array): StreamName | undefined {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 5) return undefined;
  const [owner, requestId, thread_id, call_id, record] = value as unknown[];
  if (typeof owner !== 'string' || !/^[0-9a-f]{16}$/.test(owner) || !isJsonRpcId(requestId)) return undefined;
  if (typeof thread_id !== 'string' || typeof call_id !== 'string' || (record !== 'c' && record !== 'k' && record !== 'n')) return undefined;
  // A call kept under its key has both; the others may have neither (a call refused before it had an identity).
  if (record === 'c' && (thread_id === '' || call_id === '')) return undefined;
  return { owner, requestId, thread_id, call_id, record };
}
