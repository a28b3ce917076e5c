import { NON_RETRYABLE_SLACK_ERRORS } from './api-errors.ts';

export type SlackResponseBody = Record<string, unknown> & { ok: true };

/** One HTTP attempt at a Web API method, classified: success, or a failure that may be retried. */
export type AttemptFailure = { ok: false; code: string; retryable: boolean; status?: number; retryAfterMs?: number; detail?: string };
export type AttemptOutcome = { ok: true; body: SlackResponseBody } | AttemptFailure;

export interface AttemptRequest {
  fetch: typeof fetch;
  url: string;
  token: string;
  body: Record<string, unknown>;
  timeoutMs: number;
}

export async function attemptSlackCall(request: AttemptRequest): Promise<AttemptOutcome> {
  let response: Response;
  try {
    response = await request.fetch(request.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${request.token}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(request.body),
      signal: AbortSignal.timeout(request.timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return { ok: false, code: timedOut ? 'timeout' : 'network_error', retryable: true, detail: errorDetail(error) };
  }
  return classify(response, await readJson(response));
}

function classify(response: Response, body: Record<string, unknown> | undefined): AttemptOutcome {
  const status = response.status;
  const slackCode = typeof body?.error === 'string' ? body.error : undefined;
  if (status === 429) {
    return { ok: false, code: slackCode ?? 'ratelimited', retryable: true, status, ...retryAfter(response.headers.get('retry-after')) };
  }
  if (status >= 500) return { ok: false, code: slackCode ?? `http_${status}`, retryable: true, status };
  // Another 4xx (a wrong SLACK_API_URL answering 404, say) will answer the same next time.
  if (status < 200 || status >= 300) return { ok: false, code: slackCode ?? `http_${status}`, retryable: false, status };
  if (!body) return { ok: false, code: 'invalid_response', retryable: true, status, detail: 'the answer is not a JSON object' };
  // Slack reports errors as HTTP 200 with `ok: false`.
  if (body.ok === true) return { ok: true, body: body as SlackResponseBody };
  const code = slackCode ?? 'unknown_error';
  return { ok: false, code, retryable: !NON_RETRYABLE_SLACK_ERRORS.has(code), status };
}

async function readJson(response: Response): Promise<Record<string, unknown> | undefined> {
  try {
    const parsed: unknown = JSON.parse(await response.text());
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Retry-After is seconds (what Slack sends) or an HTTP date. */
function retryAfter(header: string | null): { retryAfterMs?: number } {
  if (!header) return {};
  if (/^\d+$/.test(header.trim())) return { retryAfterMs: Number(header.trim()) * 1000 };
  const at = Date.parse(header);
  return Number.isNaN(at) ? {} : { retryAfterMs: Math.max(0, at - Date.now()) };
}

function errorDetail(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // undici puts the useful part (ECONNREFUSED, ...) in `cause`.
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
