/**
 * The most of one answer toolgate reads from a tenant's http tool or MCP server: room for a
 * result's 8 MiB of binary content parts as base64 and its text.
 */
export const MAX_TOOL_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * A response body as text, read at most `maxBytes` far: `undefined` when the body is larger (its
 * stream is cancelled, so an endpoint answering gigabytes costs the gateway `maxBytes` of memory,
 * not the whole answer).
 */
export async function readBoundedText(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** The error a capped body's stream fails with once it passes its limit. */
export class AnswerTooLargeError extends Error {
  constructor(maxBytes: number) {
    super(`the answer is larger than ${maxBytes / 1024 / 1024} MiB; toolgate reads no more of an answer`);
    this.name = 'AnswerTooLargeError';
  }
}

/**
 * The same response, whose body fails with AnswerTooLargeError once more than `maxBytes` have
 * come through: for readers toolgate does not control (the MCP SDK's transport), which would
 * otherwise buffer whatever the server sends.
 */
export function capBody(response: Response, maxBytes: number): Response {
  if (!response.body) return response;
  let total = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > maxBytes) controller.error(new AnswerTooLargeError(maxBytes));
      else controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
}
