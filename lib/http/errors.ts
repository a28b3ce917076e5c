import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** HTTP-level failures (DESIGN.md): `{"error": {"code", "message"}}` with a 4xx status. */
export function errorResponse(c: Context, status: ContentfulStatusCode, code: string, message: string) {
  return c.json({ error: { code, message } }, status);
}

/** Reads a JSON body; a syntax error is a 400 that says where. */
export async function readJsonBody(c: Context): Promise<{ ok: true; body: unknown } | { ok: false; response: Response }> {
  const text = await c.req.text();
  if (text.trim() === '') return { ok: false, response: errorResponse(c, 400, 'invalid_request', 'request body is empty; send a JSON object') };
  try {
    return { ok: true, body: JSON.parse(text) };
  } catch (error) {
    return { ok: false, response: errorResponse(c, 400, 'invalid_json', `request body is not valid JSON: ${(error as Error).message}`) };
  }
}
