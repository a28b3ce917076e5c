import type { AttributeValue } from './types.ts';
import { StoreUnavailableError } from '../store.ts';

/**
 * JSON payloads (record data, audit envelopes) are stored as one JSON string attribute rather
 * than a DynamoDB map: nothing ever queries inside them, a string round-trips any JSON exactly
 * (maps cap nesting at 32 levels and numbers at 38 digits), and its size is known before
 * sending. Large payloads are gzipped into a binary attribute instead, because an item holds at
 * most 400 KB and audit envelopes carry tool output (JSON text shrinks several times).
 */
const COMPRESS_ABOVE_BYTES = 64 * 1024;
/** Leaves room under DynamoDB's 400 KB item limit for keys and the other attributes. */
export const MAX_PAYLOAD_BYTES = 380 * 1024;

export async function encodeJson(value: unknown, what: string): Promise<AttributeValue> {
  const text = JSON.stringify(value);
  const bytes = new TextEncoder().encode(text);
  if (bytes.byteLength <= COMPRESS_ABOVE_BYTES) return { S: text };
  const packed = await pipe(bytes, new CompressionStream('gzip'));
  if (packed.byteLength > MAX_PAYLOAD_BYTES) {
    throw new Error(
      `${what} is ${kib(packed.byteLength)} KiB even gzipped (${kib(bytes.byteLength)} KiB of JSON), more than a DynamoDB item can hold (400 KB): ` +
        'lower the output or argument sizes that end up in it, or use a store without item limits',
    );
  }
  return { B: packed };
}

export async function decodeJson(value: AttributeValue | undefined, what: string): Promise<unknown> {
  try {
    if (value?.S !== undefined) return JSON.parse(value.S);
    if (value?.B !== undefined) return JSON.parse(new TextDecoder().decode(await pipe(value.B, new DecompressionStream('gzip'))));
  } catch (error) {
    throw new StoreUnavailableError('dynamodb', new Error(`${what} holds unreadable JSON: ${error instanceof Error ? error.message : String(error)}`));
  }
  throw new StoreUnavailableError('dynamodb', new Error(`${what} has no JSON payload attribute`));
}

async function pipe(bytes: Uint8Array, transform: CompressionStream | DecompressionStream): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(transform);
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function kib(bytes: number): string {
  return (bytes / 1024).toFixed(0);
}
