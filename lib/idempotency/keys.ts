import type { IdempotencyMode } from '../registry/definition.ts';

export interface KeyParts {
  tenant: string;
  thread_id: string;
  call_id: string;
  tool: string;
  args_hash: string;
}

const part = (value: string) => encodeURIComponent(value);

/** A client's own key for its calls (the Idempotency-Key header, MCP's params.idempotencyKey) is hashed into call ids, and kept to a sane size. */
export const MAX_IDEMPOTENCY_KEY = 255;

/**
 * The idempotency key of a call, or undefined for mode `none`.
 * call: tenant + thread + call id (retries of one call replay its result);
 * content: tenant + thread + tool + canonical-arguments hash (the same side effect runs once per thread).
 * A request's Idempotency-Key header reaches here as stable call ids (see lib/http/call-ids.ts).
 */
export function idempotencyKeyFor(mode: IdempotencyMode, parts: KeyParts): string | undefined {
  if (mode === 'none') return undefined;
  const scope = `idem/${part(parts.tenant)}/${part(parts.thread_id)}`;
  return mode === 'call' ? `${scope}/call/${part(parts.call_id)}` : `${scope}/content/${part(parts.tool)}/${parts.args_hash}`;
}
