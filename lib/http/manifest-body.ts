import type { Context } from 'hono';
import { errorResponse } from './errors.ts';
import { parseJsonBody } from './json-body.ts';

/** The default limit of a published manifest's body, as sent and once decompressed: 32 MiB (10,000 real tools are about 13 MB). */
export const DEFAULT_MANIFEST_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/** A limit from the environment (TOOLGATE_MANIFEST_BODY_LIMIT_BYTES): a positive whole number of bytes, or the default when unset. */
export function manifestBodyLimitFromEnv(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_MANIFEST_BODY_LIMIT_BYTES;
  if (!/^[1-9]\d{0,15}$/.test(value)) throw new Error(`TOOLGATE_MANIFEST_BODY_LIMIT_BYTES must be a positive number of bytes, got "${value}"`);
  return Number(value);
}

class TooLarge extends Error {}

/** The 413 of a manifest over the limit, as sent or once decompressed, with what to do. */
export function manifestTooLarge(c: Context, problem: string): Response {
  return errorResponse(c, 413, 'payload_too_large', `${problem}: publish fewer tools per manifest, or ask the operator to raise TOOLGATE_MANIFEST_BODY_LIMIT_BYTES`);
}

/** Passes `stream` on, erroring it with TooLarge once more than `maxBytes` went through. */
function atMost(stream: ReadableStream<Uint8Array>, maxBytes: number, what: string): ReadableStream<Uint8Array> {
  let seen = 0;
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) controller.error(new TooLarge(`${what} is larger than ${maxBytes} bytes`));
        else controller.enqueue(chunk);
      },
    }),
  );
}

/** DecompressionStream takes any BufferSource; what it is given here are the body's byte chunks. */
const gunzip = () => new DecompressionStream('gzip') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>;

async function readAll(stream: ReadableStream<Uint8Array>): Promise<ArrayBuffer> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.byteLength;
  }
  const whole = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole.buffer;
}

/**
 * A manifest publish body as JSON: as sent at most `maxBytes` (a chunked body is counted as it
 * arrives), and `Content-Encoding: gzip` accepted, decompressed as it arrives and stopped once
 * more than `maxBytes` came out, so a small bomb cannot fill memory. Other encodings are a 415.
 */
export async function readManifestBody(c: Context, maxBytes: number): Promise<{ ok: true; body: unknown } | { ok: false; response: Response }> {
  const encoding = (c.req.header('content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip') {
    return { ok: false, response: errorResponse(c, 415, 'unsupported_encoding', `Content-Encoding "${encoding}" is not accepted here: send the manifest as is, or compressed with "Content-Encoding: gzip"`) };
  }
  const raw = c.req.raw.body;
  let bytes = new ArrayBuffer(0);
  if (raw) {
    const sent = atMost(raw, maxBytes, 'the manifest as sent');
    const body = encoding === 'gzip' ? atMost(sent.pipeThrough(gunzip()), maxBytes, 'the manifest once decompressed') : sent;
    try {
      bytes = await readAll(body);
    } catch (error) {
      if (error instanceof TooLarge) return { ok: false, response: manifestTooLarge(c, error.message) };
      return { ok: false, response: errorResponse(c, 400, 'invalid_request', `the body could not be read as ${encoding === 'gzip' ? 'gzip' : 'sent'}: ${error instanceof Error ? error.message : String(error)}`) };
    }
  }
  const parsed = parseJsonBody(bytes);
  return parsed.ok ? { ok: true, body: parsed.value } : { ok: false, response: errorResponse(c, 400, parsed.code, parsed.message) };
}
