/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` and `tracestate`
 * headers, read strictly. Whatever a caller sends, a header that is not exactly well formed is
 * ignored (the call starts a new trace); nothing here throws, and nothing but the validated
 * ids, the sampled flag and a checked tracestate ever leaves this module.
 */

/** The identity of a span as it travels: ids in lowercase hex. */
export interface SpanContext {
  traceId: string;
  spanId: string;
  sampled: boolean;
  /** Vendor data a caller sent (checked); kept on the spans, never forwarded to executors. */
  traceState?: string;
}

const MAX_HEADER_CHARS = 512;
const VERSION_00 = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
// A later version may append fields after the flags ("-..."): the first four are read as version 00's.
const LATER_VERSION = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-[\x21-\x7e]*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The parent a `traceparent` header names, or undefined for anything malformed (a new trace starts). */
export function parseTraceparent(header: string | null | undefined, tracestate?: string | null): SpanContext | undefined {
  if (typeof header !== 'string' || header.length > MAX_HEADER_CHARS) return undefined;
  const value = header.trim();
  let ids = VERSION_00.exec(value)?.slice(1);
  if (!ids) {
    const later = LATER_VERSION.exec(value);
    if (!later || later[1] === '00' || later[1] === 'ff') return undefined;
    ids = later.slice(2);
  }
  const [traceId, spanId, flags] = ids as [string, string, string];
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  const traceState = parseTracestate(tracestate);
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1, ...(traceState ? { traceState } : {}) };
}

/** The `traceparent` header for a span: version 00, its ids and the sampled flag. */
export function formatTraceparent(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.sampled ? '01' : '00'}`;
}

const MAX_LIST_MEMBERS = 32;
// key: simple-key or tenant@system; value: printable ASCII but ',' and '=', not ending in a space.
const MEMBER = /^(?:[a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/** A `tracestate` header kept only if every list member is well formed (at most 32, 512 characters in all). */
export function parseTracestate(header: string | null | undefined): string | undefined {
  if (typeof header !== 'string' || header.length === 0 || header.length > MAX_HEADER_CHARS) return undefined;
  const members = header.split(',').map((member) => member.trim()).filter((member) => member !== '');
  if (members.length === 0 || members.length > MAX_LIST_MEMBERS) return undefined;
  if (!members.every((member) => MEMBER.test(member))) return undefined;
  return members.join(',');
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * Random bytes are drawn from the CSPRNG a few kilobytes at a time: one getRandomValues per ~170
 * spans instead of one per id (it costs microseconds each). Filled on first use, never at module
 * scope (Workers forbid randomness there).
 */
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let poolOffset = POOL_BYTES;

function randomHex(bytes: number): string {
  if (poolOffset + bytes > POOL_BYTES) {
    crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  let hex = '';
  for (let i = poolOffset; i < poolOffset + bytes; i++) hex += HEX[pool[i]!];
  poolOffset += bytes;
  return hex;
}

/** A new random trace id (never all zeros). */
export function newTraceId(): string {
  const id = randomHex(16);
  return id === ZERO_TRACE ? newTraceId() : id;
}

/** A new random span id (never all zeros). */
export function newSpanId(): string {
  const id = randomHex(8);
  return id === ZERO_SPAN ? newSpanId() : id;
}
