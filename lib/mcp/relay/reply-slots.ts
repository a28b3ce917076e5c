import { toHex } from '../../crypto/sha256.ts';
import type { JsonRpcError } from '../../mcp-wire/json-rpc.ts';
import type { JsonObject } from '../../registry/json.ts';
import type { RecordStore } from '../../stores/store.ts';
import { MAX_RELAYED_CHARS, replyProblem } from './reply-shapes.ts';
import { wake, waitFor } from './store-wait.ts';

/**
 * A request toolgate relays from an upstream to the client that made a call, waiting for the
 * client's answer: a record in the store under a random id (`tgr_…`), bound to the tenant and the
 * principal whose call it is. The answer may come to any instance (a POSTed JSON-RPC response on
 * the legacy revisions, an `inputResponses` retry on 2026-07-28); the instance running the call
 * reads it from the store. The slot takes one answer, of the right shape, from the same principal,
 * before it expires; anything else is refused, and a stranger learns nothing (unknown).
 */

export interface ReplySlot {
  id: string;
  tenant: string;
  principal: string;
  method: string;
  /** When the slot stops taking an answer (ms). */
  expires_at: number;
}

/** What the client answered: its result, or its JSON-RPC error. */
export type ClientReply = { result: JsonObject } | { error: JsonRpcError };

export type ReplyRefusal = { reason: 'unknown' | 'expired' | 'answered' } | { reason: 'malformed'; message: string };

export const REPLY_ID = /^tgr_[0-9a-f]{32}$/;
/** The longest a relayed request waits for its answer (a person may be filling in a form); a tool's own timeout may end it sooner. */
export const REPLY_TTL_MS = 5 * 60 * 1000;


const WAITING = 'reply-waiting';
const ANSWERED = 'reply-answered';
const slotKey = (tenant: string, id: string) => `mcp-reply/${encodeURIComponent(tenant)}/${id}`;

export const newReplyId = (): string => `tgr_${toHex(crypto.getRandomValues(new Uint8Array(16)))}`;

/** Stores the slot (durably, before its request goes to the client). */
export async function openReplySlot(store: RecordStore, slot: ReplySlot): Promise<void> {
  const outcome = await store.claim(slotKey(slot.tenant, slot.id), { state: WAITING, owner: slot.id, expires_at: slot.expires_at + REPLY_TTL_MS, data: slot as unknown as JsonObject });
  if (!outcome.claimed) throw new Error(`reply slot ${slot.id} already exists`);
}

/** Takes the client's answer to slot `id`, when the caller is the slot's principal and the answer fits its request. */
export async function answerReplySlot(store: RecordStore, caller: { tenant: string; principal: string }, id: string, reply: ClientReply, now: number): Promise<{ ok: true } | ({ ok: false } & ReplyRefusal)> {
  if (!REPLY_ID.test(id)) return { ok: false, reason: 'unknown' };
  const key = slotKey(caller.tenant, id);
  const record = await store.get(key);
  const slot = record?.data as unknown as ReplySlot | undefined;
  if (!record || !slot || slot.id !== id || slot.tenant !== caller.tenant || slot.principal !== caller.principal) return { ok: false, reason: 'unknown' };
  if (record.state === ANSWERED) return { ok: false, reason: 'answered' };
  if (slot.expires_at <= now) return { ok: false, reason: 'expired' };
  const problem = 'result' in reply ? replyProblem(slot.method, reply.result) : JSON.stringify(reply.error).length > MAX_RELAYED_CHARS ? `the error answer is larger than ${MAX_RELAYED_CHARS / 1024} KiB, more than toolgate relays` : undefined;
  if (problem) return { ok: false, reason: 'malformed', message: problem };
  const taken = await store.transition(key, { state: WAITING, owner: id }, { ...record, state: ANSWERED, data: { ...record.data, reply: reply as unknown as JsonObject } });
  if (!taken.ok) return { ok: false, reason: 'answered' };
  wake(key);
  return { ok: true };
}

/**
 * The client's answer to slot `id`, once it comes; rejects when the slot expires first or
 * `signal` aborts. An unanswered slot is left to expire, so a late answer hears "expired".
 */
export async function awaitReply(store: RecordStore, slot: ReplySlot, signal: AbortSignal, now: () => number): Promise<ClientReply> {
  const key = slotKey(slot.tenant, slot.id);
  const reply = await waitFor(key, async () => {
    const record = await store.get(key);
    return record?.state === ANSWERED ? (record.data.reply as unknown as ClientReply) : undefined;
  }, { signal, until: slot.expires_at, now });
  await store.remove(key, { state: ANSWERED, owner: slot.id }).catch(() => {});
  return reply;
}

/** A refusal said so a client (or its developer) can act on it. */
export function refusalMessage(id: string, refusal: ReplyRefusal): string {
  switch (refusal.reason) {
    case 'unknown':
      return `${id} is not a request toolgate sent this client (unknown, malformed, or another client's); nothing was relayed`;
    case 'expired':
      return `the request ${id} expired before its answer came; the tool was told the client did not answer`;
    case 'answered':
      return `the request ${id} was already answered; a request takes one answer`;
    case 'malformed':
      return `${refusal.message}; nothing was relayed, the request still waits for a well-formed answer`;
  }
}
