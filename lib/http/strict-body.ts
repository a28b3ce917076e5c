import type { Context } from 'hono';
import { errorResponse, readJsonObject } from './errors.ts';
import { parseJsonBody } from './json-body.ts';
import { describeUnknownFields, findUnknownFields, type KnownFields } from './unknown-fields.ts';

type BodyRead = { ok: true; body: Record<string, unknown> } | { ok: false; response: Response };

/** A JSON object body of one of toolgate's own routes: a field it does not know is a 400 naming it (see unknown-fields.ts). */
export async function readKnownObject(c: Context, known: KnownFields): Promise<BodyRead> {
  const read = await readJsonObject(c);
  if (!read.ok) return read;
  const unknown = describeUnknownFields(findUnknownFields(read.body, known));
  return unknown === undefined ? read : { ok: false, response: errorResponse(c, 400, 'invalid_request', unknown) };
}

/**
 * The body of a route that takes none (activate, rollback): absent, or `{}`. A field sent anyway
 * would be ignored, and a caller sending `{"version": "3"}` to rollback would not get what it
 * asked for, so it is refused with `hint`.
 */
export async function readEmptyBody(c: Context, hint: string): Promise<{ ok: true } | { ok: false; response: Response }> {
  const bytes = await c.req.arrayBuffer();
  if (bytes.byteLength === 0) return { ok: true };
  const parsed = parseJsonBody(bytes);
  // `invalid_request` is a body of whitespace only: no body.
  if (!parsed.ok) return parsed.code === 'invalid_request' ? { ok: true } : { ok: false, response: errorResponse(c, 400, parsed.code, parsed.message) };
  const body = parsed.value;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, response: errorResponse(c, 400, 'invalid_request', 'this route takes no body (or an empty JSON object)') };
  }
  const unknown = describeUnknownFields(findUnknownFields(body as Record<string, unknown>, { fields: [], otherwise: hint }));
  return unknown === undefined ? { ok: true } : { ok: false, response: errorResponse(c, 400, 'invalid_request', unknown) };
}
