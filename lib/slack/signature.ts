import { constantTimeEqual, hmacSha256Hex } from '../crypto/hmac.ts';

/**
 * Slack's request signing (v0): HMAC-SHA256 with the app's signing secret over
 * `v0:<X-Slack-Request-Timestamp>:<raw body>`, sent as `X-Slack-Signature: v0=<hex>`.
 * The body must be the bytes Slack sent, before any form or JSON parsing.
 */
export const SLACK_TIMESTAMP_HEADER = 'x-slack-request-timestamp';
export const SLACK_SIGNATURE_HEADER = 'x-slack-signature';
/** Slack's own advice: refuse requests more than five minutes from now, against replays. */
export const SLACK_TOLERANCE_SECONDS = 300;

export interface SlackRequestToVerify {
  signingSecret: string;
  /** The X-Slack-Request-Timestamp header (unix seconds), as received. */
  timestamp: string | null | undefined;
  /** The X-Slack-Signature header, as received. */
  signature: string | null | undefined;
  rawBody: string | Uint8Array;
  nowSeconds?: number;
  toleranceSeconds?: number;
}

export type SlackVerification = { ok: true } | { ok: false; reason: string };

/** Checks that a request came from Slack: headers present, timestamp fresh (either direction), signature matching. */
export async function verifySlackRequest(request: SlackRequestToVerify): Promise<SlackVerification> {
  const { signingSecret, timestamp, signature, rawBody } = request;
  // An empty key would make the HMAC computable by anyone: treat it as a configuration fault.
  if (!signingSecret) return { ok: false, reason: 'no Slack signing secret is configured' };
  if (!timestamp) return { ok: false, reason: `missing ${SLACK_TIMESTAMP_HEADER} header` };
  if (!signature) return { ok: false, reason: `missing ${SLACK_SIGNATURE_HEADER} header` };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: `${SLACK_TIMESTAMP_HEADER} is not a unix timestamp in seconds` };
  const now = request.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = request.toleranceSeconds ?? SLACK_TOLERANCE_SECONDS;
  if (Math.abs(now - Number(timestamp)) > tolerance) {
    return { ok: false, reason: `${SLACK_TIMESTAMP_HEADER} is more than ${tolerance} s from now (replayed request or clock skew)` };
  }
  const expected = await signSlackRequest(signingSecret, timestamp, rawBody);
  return constantTimeEqual(expected, signature) ? { ok: true } : { ok: false, reason: 'Slack signature does not match the body' };
}

/** The X-Slack-Signature value Slack would send for this body (`v0=<hex>`). */
export async function signSlackRequest(signingSecret: string, timestamp: string | number, rawBody: string | Uint8Array): Promise<string> {
  return `v0=${await hmacSha256Hex(signingSecret, baseString(String(timestamp), rawBody))}`;
}

function baseString(timestamp: string, rawBody: string | Uint8Array): string | Uint8Array {
  const prefix = `v0:${timestamp}:`;
  if (typeof rawBody === 'string') return prefix + rawBody;
  // Bytes stay bytes: decoding and re-encoding could alter a body that is not valid UTF-8.
  const head = new TextEncoder().encode(prefix);
  const joined = new Uint8Array(head.length + rawBody.length);
  joined.set(head);
  joined.set(rawBody, head.length);
  return joined;
}
