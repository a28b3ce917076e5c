import { constantTimeEqual, hmacSha256Hex } from './hmac.ts';

/**
 * toolgate's request signature, used by the http executor (toolgate → tenant tool) and the
 * exec RPC (gateway → exec-server): HMAC-SHA256 over `timestamp + "." + body`, sent as
 * `X-Toolgate-Timestamp` (unix seconds) and `X-Toolgate-Signature: v1=<hex>`.
 */
export const TIMESTAMP_HEADER = 'x-toolgate-timestamp';
export const SIGNATURE_HEADER = 'x-toolgate-signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export async function signBody(secret: string, body: string | Uint8Array, nowSeconds = Math.floor(Date.now() / 1000)): Promise<Record<string, string>> {
  const timestamp = String(nowSeconds);
  const signature = await hmacSha256Hex(secret, concat(timestamp, body));
  return { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: `v1=${signature}` };
}

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/** Verifies a signed body: present, fresh (within the tolerance either way) and matching. */
export async function verifySignedBody(
  secret: string,
  body: string | Uint8Array,
  timestamp: string | null | undefined,
  signature: string | null | undefined,
  options: { nowSeconds?: number; toleranceSeconds?: number } = {},
): Promise<SignatureCheck> {
  if (!timestamp || !signature) return { ok: false, reason: 'missing signature headers' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'malformed timestamp' };
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - Number(timestamp)) > tolerance) return { ok: false, reason: 'stale timestamp' };
  const expected = `v1=${await hmacSha256Hex(secret, concat(timestamp, body))}`;
  return constantTimeEqual(expected, signature) ? { ok: true } : { ok: false, reason: 'signature mismatch' };
}

function concat(timestamp: string, body: string | Uint8Array): string | Uint8Array {
  if (typeof body === 'string') return `${timestamp}.${body}`;
  const prefix = new TextEncoder().encode(`${timestamp}.`);
  const joined = new Uint8Array(prefix.length + body.length);
  joined.set(prefix);
  joined.set(body, prefix.length);
  return joined;
}
