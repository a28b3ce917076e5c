import type { ToolCall } from '../dispatch/call.ts';
import { CALL_FORMATS, CallFormatError, isCallFormat, PROVIDER_FORMATS, type CallFormat } from '../dispatch/formats/index.ts';
import { assignCallId } from './call-ids.ts';
import { unknownDispatchFields } from './dispatch-fields.ts';
import { CALL_ID, THREAD_ID } from './identifiers.ts';
import { clippedJson } from '../validation/messages.ts';

export interface DispatchRequest {
  thread_id: string;
  calls: ToolCall[];
  parallel: boolean;
  format?: CallFormat;
  /** Set when the body names a tenant (must be the key's own). */
  tenant?: string;
}

export type ParsedDispatchRequest = { ok: true; request: DispatchRequest } | { ok: false; message: string };

export const MAX_CALLS_PER_REQUEST = 128;

/**
 * The body of POST /v1/dispatch: `{thread_id, calls: [{call_id?, name, arguments}], parallel?}`,
 * or a provider's own shape with `format` (openai `tool_calls`, anthropic `content`, gemini `parts`).
 */
export async function parseDispatchRequest(body: unknown, idempotencyKey: string | undefined): Promise<ParsedDispatchRequest> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { ok: false, message: 'the body must be a JSON object' };
  const fields = body as Record<string, unknown>;
  if (fields.format !== undefined && fields.format !== 'toolgate' && !isCallFormat(fields.format)) {
    return { ok: false, message: `format must be one of toolgate, ${CALL_FORMATS.join(', ')} (got ${clippedJson(fields.format)})` };
  }
  const format = isCallFormat(fields.format) ? fields.format : undefined;
  // Before anything else: a misnamed field (`threadId`, `calls[0].id`) is named, not dropped or reported as missing.
  const unknown = unknownDispatchFields(fields, format);
  if (unknown !== undefined) return { ok: false, message: unknown };
  if (typeof fields.thread_id !== 'string' || !THREAD_ID.pattern.test(fields.thread_id)) {
    return { ok: false, message: `thread_id is required: ${THREAD_ID.describe}` };
  }
  if (fields.parallel !== undefined && typeof fields.parallel !== 'boolean') return { ok: false, message: 'parallel must be true or false' };
  if (fields.tenant !== undefined && typeof fields.tenant !== 'string') return { ok: false, message: 'tenant must be a string' };
  let calls: ToolCall[];
  try {
    calls = format ? await PROVIDER_FORMATS[format].readCalls(fields, fields.thread_id) : await readOwnCalls(fields.calls, idempotencyKey);
  } catch (error) {
    if (error instanceof CallFormatError) return { ok: false, message: error.message };
    throw error;
  }
  if (calls.length > MAX_CALLS_PER_REQUEST) return { ok: false, message: `at most ${MAX_CALLS_PER_REQUEST} calls per request (got ${calls.length})` };
  const ids = new Set<string>();
  for (const [i, call] of calls.entries()) {
    // Provider shapes bring their own ids; they become part of store keys, so they are bounded too.
    if (!CALL_ID.pattern.test(call.call_id)) return { ok: false, message: `the id of call ${i} must be ${CALL_ID.describe} (got ${call.call_id.length} characters)` };
    if (ids.has(call.call_id)) return { ok: false, message: `call_id "${call.call_id}" appears twice in one request` };
    ids.add(call.call_id);
  }
  return { ok: true, request: { thread_id: fields.thread_id, calls, parallel: fields.parallel === true, format, tenant: fields.tenant as string | undefined } };
}

async function readOwnCalls(value: unknown, idempotencyKey: string | undefined): Promise<ToolCall[]> {
  if (!Array.isArray(value)) throw new CallFormatError('calls must be an array of {call_id?, name, arguments} (or send a provider shape with "format")');
  const calls: ToolCall[] = [];
  for (const [i, item] of value.entries()) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new CallFormatError(`calls[${i}] must be an object`);
    const call = item as Record<string, unknown>;
    if (typeof call.name !== 'string' || call.name === '') throw new CallFormatError(`calls[${i}].name must be a non-empty string`);
    if (call.call_id !== undefined && (typeof call.call_id !== 'string' || call.call_id === '' || call.call_id.length > 200)) {
      throw new CallFormatError(`calls[${i}].call_id must be a string of 1-200 characters`);
    }
    const call_id = typeof call.call_id === 'string' ? call.call_id : await assignCallId(idempotencyKey, i);
    calls.push({ call_id, name: call.name, arguments: call.arguments });
  }
  return calls;
}
