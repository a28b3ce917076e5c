import { egressRefusal } from './fetch.ts';

/** Connection failures that happen before a request leaves: the other side cannot have run anything. */
const NOT_SENT_CAUSES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Whether a failed fetch provably never delivered its request: the egress policy refused it, or
 * the connection could not be made. Anything else (a reset or hang-up after sending, a timeout)
 * may have reached the other side, which may have acted on it.
 */
export function neverSent(error: unknown): boolean {
  if (egressRefusal(error)) return true;
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' && NOT_SENT_CAUSES.has(code);
}
