import { sha256Hex, toHex } from '../idempotency/canonical-json.ts';

/**
 * A call without an id gets one. With the request's Idempotency-Key header the id is derived
 * from the key and the call's position, so a retried request maps onto the same calls (the
 * header is the fallback idempotency key); without it the id is random.
 */
export async function assignCallId(idempotencyKey: string | undefined, index: number): Promise<string> {
  if (idempotencyKey === undefined) return `call_${toHex(crypto.getRandomValues(new Uint8Array(12)))}`;
  return `call_${(await sha256Hex(`${idempotencyKey}\u0000${index}`)).slice(0, 24)}`;
}
