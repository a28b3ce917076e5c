import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { describeValue } from '../validation/messages.ts';
import { parseJsonBody } from './json-body.ts';

/** HTTP-level failures (DESIGN.md): `{"error": {"code", "message"}}` with a 4xx status. */
export function errorResponse(c: Context, status: ContentfulStatusCode, code: string, message: string) {
  return c.json({ error: { code, message } }, status);
}

/** Reads a JSON body (see parseJsonBody for what is refused); a problem is a 400 that says what and where. */
export async function readJsonBody(c: Context): Promise<{ ok: true; body: unknown } | { ok: false; response: Response }> {
  const parsed = parseJsonBody(await c.req.arrayBuffer());
  return parsed.ok ? { ok: true, body: parsed.value } : { ok: false, response: errorResponse(c, 400, parsed.code, parsed.message) };
}

/** Reads a JSON body that must be an object (`null`, arrays and scalars are a 400). */
export async function readJsonObject(c: Context): Promise<{ ok: true; body: Record<string, unknown> } | { ok: false; response: Response }> {
  const read = await readJsonBody(c);
  if (!read.ok) return read;
  const body = read.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, response: errorResponse(c, 400, 'invalid_request', `the body must be a JSON object, got ${describeValue(body)}`) };
  }
  return { ok: true, body: body as Record<string, unknown> };
}
